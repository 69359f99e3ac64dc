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

import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import dev.txinbox.ops.OpsConfig;

/**
 * Every {@code /admin} call needs {@code Authorization: Bearer <TXINBOX_ADMIN_TOKEN>}; without a
 * configured token every call is refused. Compares digests, so neither the content nor the length of
 * the token leaks through timing.
 */
public class AdminTokenFilter {

    private final Optional<byte[]> expected;

    public AdminTokenFilter(OpsConfig.Admin config) {
        this.expected = config.token().filter(t -> !t.isBlank()).map(AdminTokenFilter::digest);
    }

    @ServerRequestFilter(priority = Priorities.AUTHENTICATION)
    public Response authenticate(ContainerRequestContext request) {
        if (!request.getUriInfo().getPath().startsWith("/admin")) {
            return null;
        }
        if (expected.isEmpty()) {
            return refuse("the admin API is disabled: no TXINBOX_ADMIN_TOKEN is configured");
        }
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return refuse("missing bearer token");
        }
        if (!MessageDigest.isEqual(expected.get(), digest(header.substring(7).trim()))) {
            return refuse("wrong bearer token");
        }
        return null;
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
