package dev.txinbox.ops.console;

import java.net.URI;
import java.time.Duration;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Cookie;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.RestForm;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.ops.admin.AdminAudit;
import dev.txinbox.ops.admin.AdminToken;
import io.quarkus.qute.TemplateInstance;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;

/**
 * Signing in to the console with the admin token, and out. A session is a cookie and a row of
 * {@code console_sessions} ({@link ConsoleSessions}); {@link ConsoleFilter} checks it on every other page.
 */
@Path("/console")
@Blocking
@Produces(MediaType.TEXT_HTML)
public class ConsoleSignIn {

    private static final Logger LOG = Logger.getLogger(ConsoleSignIn.class);

    private final AdminToken token;
    private final SignInThrottle throttle;
    private final ConsoleSessions sessions;
    private final ConsoleRequest request;
    private final AdminAudit audit;
    private final TxinboxConfig.Console config;

    public ConsoleSignIn(AdminToken token, SignInThrottle throttle, ConsoleSessions sessions, ConsoleRequest request,
            AdminAudit audit, TxinboxConfig config) {
        this.token = token;
        this.throttle = throttle;
        this.sessions = sessions;
        this.request = request;
        this.audit = audit;
        this.config = config.console();
    }

    @GET
    @Path("/sign-in")
    public TemplateInstance signInPage() {
        return ConsoleTemplates.signIn(null, null);
    }

    /**
     * The token comes in a POST form, never in a URL. A refusal is logged (never the token), counted in
     * {@code txinbox_admin_auth_failures_total{reason}}, and answered late (see {@link SignInThrottle}).
     */
    @POST
    @Path("/sign-in")
    public Uni<Response> signIn(@RestForm String token, HttpServerRequest http, UriInfo uri) {
        String client = client(http);
        Duration wait = throttle.waitFor(client);
        if (!wait.isZero()) {
            LOG.warnf("console sign-in from %s refused unread: too soon after a refused one (%d ms to wait)", client,
                    wait.toMillis());
            return Uni.createFrom().item(ConsoleFilter.html(Response.Status.TOO_MANY_REQUESTS, ConsoleTemplates.signIn(
                    null, "Too many refused sign-ins from your address: try again in " + Math.max(1, wait.toSeconds())
                            + " s.").render()));
        }
        String reason = token == null || token.isEmpty() ? AdminToken.MISSING
                : this.token.matches(token) ? null : AdminToken.WRONG;
        if (reason != null) {
            this.token.refused(reason);
            Duration delay = throttle.refused(client);
            LOG.warnf("console sign-in refused (%s) from %s", reason, client);
            Response refused = ConsoleFilter.html(Response.Status.UNAUTHORIZED,
                    ConsoleTemplates.signIn(null, reason.equals(AdminToken.MISSING) ? "Enter the admin token."
                            : "That is not the admin token.").render());
            return Uni.createFrom().item(refused).onItem().delayIt().by(delay);
        }
        throttle.succeeded(client);
        ConsoleSessions.Opened opened = sessions.open(client);
        audit.record(opened.session().actor(), "sign-in", null, null, "signed in", "from " + client);
        return Uni.createFrom().item(Response.seeOther(URI.create("/console"))
                .header(HttpHeaders.SET_COOKIE, cookie(opened.cookie(), config.sessionLifetime().toSeconds(), http, uri))
                .build());
    }

    @POST
    @Path("/sign-out")
    public Response signOut(@RestForm String csrf, HttpHeaders headers, HttpServerRequest http, UriInfo uri) {
        ConsoleSessions.Session session = request.formSession(csrf);
        Cookie cookie = headers.getCookies().get(ConsoleSessions.COOKIE);
        sessions.close(cookie == null ? null : cookie.getValue());
        audit.record(session.actor(), "sign-out", null, null, "signed out", null);
        return Response.seeOther(URI.create(ConsoleFilter.SIGN_IN)).header(HttpHeaders.SET_COOKIE, cookie("", 0, http, uri)).build();
    }

    private static String client(HttpServerRequest http) {
        return http == null || http.remoteAddress() == null ? "?" : http.remoteAddress().hostAddress();
    }

    /**
     * The session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it),
     * Secure over TLS, only for the console's paths.
     */
    private String cookie(String value, long maxAgeSeconds, HttpServerRequest http, UriInfo uri) {
        boolean secure = config.secureCookie().orElseGet(() -> (http != null && http.isSSL())
                || "https".equalsIgnoreCase(uri.getRequestUri().getScheme()));
        return ConsoleSessions.COOKIE + "=" + value + "; Path=/console; Max-Age=" + maxAgeSeconds
                + "; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "");
    }
}
