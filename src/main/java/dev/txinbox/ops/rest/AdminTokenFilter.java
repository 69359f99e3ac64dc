package dev.txinbox.ops.rest;

import java.util.Map;

import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import dev.txinbox.ops.admin.AdminToken;
import io.vertx.core.http.HttpServerRequest;

/**
 * Every {@code /admin} call needs {@code Authorization: Bearer <TXINBOX_ADMIN_TOKEN>}; without a
 * configured token every call is refused. The comparison is {@link AdminToken}'s (constant-time). A
 * refusal is logged (path, reason and caller, never the presented token) and counted in
 * {@code txinbox_admin_auth_failures_total{reason}}.
 */
public class AdminTokenFilter {

    private static final Logger LOG = Logger.getLogger(AdminTokenFilter.class);

    private final AdminToken token;

    public AdminTokenFilter(AdminToken token) {
        this.token = token;
    }

    @ServerRequestFilter(priority = Priorities.AUTHENTICATION)
    public Response authenticate(ContainerRequestContext request, HttpServerRequest http) {
        if (!request.getUriInfo().getPath().startsWith("/admin")) {
            return null;
        }
        if (!token.configured()) {
            return refuse(request, http, AdminToken.DISABLED,
                    "the admin API is disabled: no TXINBOX_ADMIN_TOKEN is configured");
        }
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return refuse(request, http, AdminToken.MISSING, "missing bearer token");
        }
        if (!token.matches(header.substring(7).trim())) {
            return refuse(request, http, AdminToken.WRONG, "wrong bearer token");
        }
        return null;
    }

    private Response refuse(ContainerRequestContext request, HttpServerRequest http, String reason, String why) {
        token.refused(reason);
        String path = request.getUriInfo().getPath();
        LOG.warnf("admin call refused (%s): %s %s from %s", why, request.getMethod(),
                path.length() > 200 ? path.substring(0, 200) + "…" : path,
                http == null || http.remoteAddress() == null ? "?" : http.remoteAddress().hostAddress());
        return Response.status(Response.Status.UNAUTHORIZED).header(HttpHeaders.WWW_AUTHENTICATE, "Bearer")
                .type(MediaType.APPLICATION_JSON).entity(Map.of("error", why)).build();
    }
}
