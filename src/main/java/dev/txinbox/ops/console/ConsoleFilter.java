package dev.txinbox.ops.console;

import java.net.URI;
import java.util.Optional;

import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.Cookie;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

import dev.txinbox.ops.admin.AdminToken;

/**
 * The console's gate: every {@code /console} page needs an open session, except the sign-in page; with no
 * admin token configured the whole console is closed (401), as the admin API is. Someone without a session
 * is sent to sign in. CSRF tokens are checked by each form's handler, which reads the form.
 * <p>
 * Every console answer also gets the headers that keep a page of operator data where it belongs: no
 * script at all (the pages have none, so a message's {@code <script>} could not run even if it were not
 * escaped), no framing, no referrer, no caching.
 */
public class ConsoleFilter {

    private static final Logger LOG = Logger.getLogger(ConsoleFilter.class);

    /** The one console page open without a session. */
    static final String SIGN_IN = "/console/sign-in";

    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'self'; img-src 'self';"
            + " form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

    private final AdminToken token;
    private final ConsoleSessions sessions;
    private final ConsoleRequest current;

    public ConsoleFilter(AdminToken token, ConsoleSessions sessions, ConsoleRequest current) {
        this.token = token;
        this.sessions = sessions;
        this.current = current;
    }

    static boolean isConsole(String path) {
        return path.equals("/console") || path.startsWith("/console/");
    }

    @ServerRequestFilter(priority = Priorities.AUTHENTICATION)
    public Response authenticate(ContainerRequestContext request) {
        String path = request.getUriInfo().getPath();
        if (!isConsole(path)) {
            return null;
        }
        if (!token.configured()) {
            if ("POST".equals(request.getMethod()) && path.equals(SIGN_IN)) {
                // Counted as the admin API counts its calls while closed: someone tried the token.
                token.refused(AdminToken.DISABLED);
                LOG.warnf("console sign-in refused: the console is closed (no TXINBOX_ADMIN_TOKEN is configured)");
            }
            return html(Response.Status.UNAUTHORIZED, ConsoleTemplates.closed(null).render());
        }
        if (path.equals(SIGN_IN)) {
            return null;
        }
        Cookie cookie = request.getCookies().get(ConsoleSessions.COOKIE);
        Optional<ConsoleSessions.Session> session;
        try {
            session = sessions.find(cookie == null ? null : cookie.getValue());
        } catch (RuntimeException e) {
            LOG.warnf("console session check failed: %s", e.toString());
            return html(Response.Status.SERVICE_UNAVAILABLE, ConsoleTemplates.problem(null,
                    "Database unreachable", "The console keeps its sessions in the database, which did not answer."
                            + " The service's health is still at /q/health.", SIGN_IN).render());
        }
        if (session.isEmpty()) {
            return Response.seeOther(URI.create(SIGN_IN)).build();
        }
        current.signedIn(session.get());
        return null;
    }

    @ServerResponseFilter
    public void headers(ContainerRequestContext request, ContainerResponseContext response) {
        if (!isConsole(request.getUriInfo().getPath())) {
            return;
        }
        MultivaluedMap<String, Object> headers = response.getHeaders();
        headers.putSingle("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        headers.putSingle("X-Frame-Options", "DENY");
        headers.putSingle("Referrer-Policy", "no-referrer");
        headers.putSingle("X-Content-Type-Options", "nosniff");
        headers.putSingle("Cache-Control", "no-store");
    }

    static Response html(Response.Status status, String page) {
        return Response.status(status).type(MediaType.TEXT_HTML_TYPE.withCharset("UTF-8")).entity(page).build();
    }
}
