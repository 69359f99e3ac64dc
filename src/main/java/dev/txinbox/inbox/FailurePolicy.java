package dev.txinbox.inbox;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * What a failure means, in one place:
 * <ul>
 * <li>{@link InvalidMessageException} anywhere in the cause chain is permanent: the message goes to
 * the dead-letter queue at once;</li>
 * <li>everything else (database down, timeouts, bugs) is transient: the transaction rolls back and the
 * message comes back after {@link #retryDelay}, an exponential backoff with jitter.</li>
 * </ul>
 */
@ApplicationScoped
public class FailurePolicy {

    static final int MAX_ERROR_LENGTH = 2000;

    private final RetryConfig config;

    public FailurePolicy(RetryConfig config) {
        this.config = config;
    }

    public boolean isPermanent(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof InvalidMessageException) {
                return true;
            }
        }
        return false;
    }

    /**
     * The delay before attempt {@code attempt + 1}: base·2^(attempt-1), capped, with "equal jitter"
     * (half fixed, half random) so that a burst of failures does not come back as a burst. Whole
     * seconds, at least one: SQS visibility has one-second resolution and zero would be a hot loop.
     */
    public Duration retryDelay(int attempt) {
        long baseMillis = config.base().toMillis();
        long capMillis = config.cap().toMillis();
        int exponent = Math.min(Math.max(attempt, 1) - 1, 30);
        long delay = Math.min(capMillis, baseMillis * (1L << exponent));
        long jittered = delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1);
        return Duration.ofSeconds(Math.max(1, (jittered + 999) / 1000));
    }

    /** The error as an operator reads it: the root cause's class and message, bounded. */
    public String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String text = root == failure ? failure.toString() : failure.getClass().getName() + ": " + root;
        return text.length() > MAX_ERROR_LENGTH ? text.substring(0, MAX_ERROR_LENGTH) + "…" : text;
    }
}
