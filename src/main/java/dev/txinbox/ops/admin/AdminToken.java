package dev.txinbox.ops.admin;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Optional;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import dev.txinbox.config.TxinboxConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;

/**
 * The admin token ({@code TXINBOX_ADMIN_TOKEN}) and what it gates: the admin API's bearer check and the
 * console's sign-in share it, so both compare it the same way and count refusals in the same metric.
 * <p>
 * The comparison is constant-time: both tokens are hashed with SHA-256 and the digests compared with
 * {@link MessageDigest#isEqual}, which looks at every byte, so neither the content nor the length of the
 * token leaks through timing. Refusals are counted in {@code txinbox_admin_auth_failures_total{reason}}.
 */
@ApplicationScoped
public class AdminToken {

    /** No token is configured: everything the token gates is closed. */
    public static final String DISABLED = "disabled";
    public static final String MISSING = "missing_token";
    public static final String WRONG = "wrong_token";

    private final Optional<String> token;
    private final Optional<byte[]> expected;
    private final MeterRegistry registry;

    public AdminToken(TxinboxConfig config, MeterRegistry registry) {
        this.token = config.admin().token().filter(t -> !t.isBlank());
        this.expected = token.map(AdminToken::digest);
        this.registry = registry;
    }

    /** The series exist at 0 from the first scrape, so that an alert on their rate works from the start. */
    void registerCounters(@Observes StartupEvent started) {
        for (String reason : new String[] { DISABLED, MISSING, WRONG }) {
            counter(reason);
        }
    }

    public boolean configured() {
        return expected.isPresent();
    }

    /** Whether {@code presented} is the token; false when none is configured. */
    public boolean matches(String presented) {
        return presented != null && expected.isPresent()
                && MessageDigest.isEqual(expected.get(), digest(presented));
    }

    /**
     * A key for {@code purpose}, computed from the token (HMAC-SHA256 keyed with it): every instance that
     * shares the token derives the same key, and rotating the token replaces every key computed from it.
     * Empty when no token is configured.
     */
    public Optional<byte[]> derivedKey(String purpose) {
        return token.map(t -> hmac(t.getBytes(StandardCharsets.UTF_8), purpose));
    }

    /** Counts a refusal in {@code txinbox_admin_auth_failures_total{reason}}. */
    public void refused(String reason) {
        counter(reason).increment();
    }

    private Counter counter(String reason) {
        return Counter.builder("txinbox.admin.auth.failures")
                .description("Admin calls and console sign-ins refused for want of the right token")
                .tag("reason", reason).register(registry);
    }

    /** HMAC-SHA256 of {@code text} under {@code key}. */
    public static byte[] hmac(byte[] key, String text) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] digest(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
