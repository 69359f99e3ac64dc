package dev.txinbox.ops.console;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.ops.admin.AdminToken;
import io.quarkus.narayana.jta.QuarkusTransaction;

/**
 * Console sessions. The cookie is {@code <id>.<expiry>.<signature>}: a random 128-bit id, the expiry in
 * epoch seconds, and an HMAC-SHA256 of both under a key computed from the admin token (so every instance
 * that shares the token accepts it, and rotating the token ends every session). A forged or altered cookie
 * fails the signature without touching the database; a genuine one must also still be open in
 * {@code console_sessions}, which is what makes a sign-out final on every instance. The table holds a hash
 * of the id, never the id itself.
 * <p>
 * The CSRF token of a session is an HMAC of its id under the same key: nothing to store, different for
 * every session, and unknown to anyone who has not got the cookie.
 */
@ApplicationScoped
public class ConsoleSessions {

    public static final String COOKIE = "txinbox_console";

    /** A signed-in session: a short label for people and logs, its CSRF token and when it expires. */
    public record Session(String label, String csrf, Instant expiresAt) {

        /** Who did something, as admin_audit records it. */
        public String actor() {
            return "console session " + label;
        }
    }

    /** A new session and the cookie value that carries it. */
    public record Opened(Session session, String cookie) {
    }

    private static final Base64.Encoder BASE64 = Base64.getUrlEncoder().withoutPadding();

    private final SecureRandom random = new SecureRandom();
    private final Optional<byte[]> key;
    private final TxinboxConfig.Console config;
    private final ConsoleClock clock;
    private final EntityManager entityManager;

    public ConsoleSessions(AdminToken token, TxinboxConfig config, ConsoleClock clock, EntityManager entityManager) {
        this.key = token.derivedKey("txinbox console sessions");
        this.config = config.console();
        this.clock = clock;
        this.entityManager = entityManager;
    }

    /** Opens a session for a caller who presented the right token. */
    public Opened open(String client) {
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        String id = BASE64.encodeToString(bytes);
        Instant expires = clock.now().plus(config.sessionLifetime());
        long expiry = expires.getEpochSecond();
        String cookie = id + "." + expiry + "." + sign(id + "." + expiry);
        Session session = session(id, Instant.ofEpochSecond(expiry));
        QuarkusTransaction.requiringNew().run(() -> {
            // Sessions long expired are only history; a sign-in is a rare enough moment to clear them.
            entityManager.createNativeQuery("delete from console_sessions where expires_at < now() - interval '1 day'")
                    .executeUpdate();
            entityManager.createNativeQuery("insert into console_sessions (id_hash, label, client, expires_at)"
                    + " values (?1, ?2, ?3, ?4)").setParameter(1, hash(id)).setParameter(2, session.label())
                    .setParameter(3, client).setParameter(4, Timestamp.from(session.expiresAt())).executeUpdate();
        });
        return new Opened(session, cookie);
    }

    /** The session a cookie carries, if it is genuine, unexpired and not signed out. */
    public Optional<Session> find(String cookie) {
        Optional<Signed> signed = verify(cookie);
        if (signed.isEmpty()) {
            return Optional.empty();
        }
        List<?> open = QuarkusTransaction.requiringNew().call(() -> entityManager.createNativeQuery(
                "select 1 from console_sessions where id_hash = ?1 and ended_at is null")
                .setParameter(1, hash(signed.get().id())).getResultList());
        return open.isEmpty() ? Optional.empty() : Optional.of(session(signed.get().id(), signed.get().expires()));
    }

    /** Signs a session out for good; returns it, if the cookie carried one that was open. */
    public Optional<Session> close(String cookie) {
        Optional<Session> session = find(cookie);
        session.ifPresent(s -> QuarkusTransaction.requiringNew().run(() -> entityManager.createNativeQuery(
                "update console_sessions set ended_at = now() where id_hash = ?1 and ended_at is null")
                .setParameter(1, hash(verify(cookie).orElseThrow().id())).executeUpdate()));
        return session;
    }

    /** Whether a form's CSRF token is the session's, compared in constant time. */
    public static boolean csrfMatches(Session session, String presented) {
        return presented != null && MessageDigest.isEqual(session.csrf().getBytes(StandardCharsets.UTF_8),
                presented.getBytes(StandardCharsets.UTF_8));
    }

    private record Signed(String id, Instant expires) {
    }

    /** The id and expiry of a cookie whose signature holds and which has not expired; no database involved. */
    private Optional<Signed> verify(String cookie) {
        if (key.isEmpty() || cookie == null || cookie.length() > 200) {
            return Optional.empty();
        }
        String[] parts = cookie.split("\\.", -1);
        if (parts.length != 3) {
            return Optional.empty();
        }
        byte[] expected = sign(parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII);
        if (!MessageDigest.isEqual(expected, parts[2].getBytes(StandardCharsets.US_ASCII))) {
            return Optional.empty();
        }
        Instant expires;
        try {
            expires = Instant.ofEpochSecond(Long.parseLong(parts[1]));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        return clock.now().isBefore(expires) ? Optional.of(new Signed(parts[0], expires)) : Optional.empty();
    }

    private Session session(String id, Instant expires) {
        return new Session(hash(id).substring(0, 8), sign("csrf." + id), expires);
    }

    private String sign(String text) {
        return BASE64.encodeToString(AdminToken.hmac(key.orElseThrow(), text));
    }

    private static String hash(String id) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(id.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
