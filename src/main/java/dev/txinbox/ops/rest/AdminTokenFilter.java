package dev.txinbox.ops.rest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.Optional;

import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import dev.txinbox.config.TxinboxConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.http.HttpServerRequest;

/**
 * Every {@code /admin} call needs {@code Authorization: Bearer <TXINBOX_ADMIN_TOKEN>}; without a
 * configured token every call is refused. The comparison is constant-time: both tokens are hashed with
 * SHA-256 and the digests compared with {@link MessageDigest#isEqual}, which looks at every byte, so
 * neither the content nor the length of the token leaks through timing. A refusal is logged (path,
 * reason and caller, never the presented token) and counted in
 * {@code txinbox_admin_auth_failures_total{reason}}.
 */
public class AdminTokenFilter {

    private static final Logger LOG = Logger.getLogger(AdminTokenFilter.class);

    private final Optional<byte[]> expected;
    private final MeterRegistry registry;

    public AdminTokenFilter(TxinboxConfig config, MeterRegistry registry) {
        this.expected = config.admin().token().filter(t -> !t.isBlank()).map(AdminTokenFilter::digest);
        this.registry = registry;
        for (String reason : new String[] { "disabled", "missing_token", "wrong_token" }) {
            counter(reason);
        }
    }

    @ServerRequestFilter(priority = Priorities.AUTHENTICATION)
    public Response authenticate(ContainerRequestContext request, HttpServerRequest http) {
        if (!request.getUriInfo().getPath().startsWith("/admin")) {
            return null;
        }
        if (expected.isEmpty()) {
            return refuse(request, http, "disabled", "the admin API is disabled: no TXINBOX_ADMIN_TOKEN is configured");
        }
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return refuse(request, http, "missing_token", "missing bearer token");
        }
        if (!MessageDigest.isEqual(expected.get(), digest(header.substring(7).trim()))) {
            return refuse(request, http, "wrong_token", "wrong bearer token");
        }
        return null;
    }

    private Response refuse(ContainerRequestContext request, HttpServerRequest http, String reason, String why) {
        counter(reason).increment();
        String path = request.getUriInfo().getPath();
        LOG.warnf("admin call refused (%s): %s %s from %s", why, request.getMethod(),
                path.length() > 200 ? path.substring(0, 200) + "…" : path,
                http == null || http.remoteAddress() == null ? "?" : http.remoteAddress().hostAddress());
        return refuse(why);
    }

    private Counter counter(String reason) {
        return Counter.builder("txinbox.admin.auth.failures").description("Admin calls refused for want of the right token")
                .tag("reason", reason).register(registry);
    }

    private static Response refuse(String why) {
        return Response.status(Response.Status.UNAUTHORIZED).header(HttpHeaders.WWW_AUTHENTICATE, "Bearer")
                .type(MediaType.APPLICATION_JSON).entity(Map.of("error", why)).build();
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
