package dev.txinbox.inbox;

import java.time.Duration;

/**
 * How a consumer retries transient failures.
 *
 * @param base        delay before the second attempt; doubles with every further attempt
 * @param cap         longest delay between two attempts
 * @param maxAttempts attempts in all; after the last failed one the message is dead-lettered
 */
public record RetrySettings(Duration base, Duration cap, int maxAttempts) {

    public RetrySettings {
        if (base.isNegative() || base.isZero() || cap.compareTo(base) < 0 || maxAttempts < 1) {
            throw new IllegalArgumentException("retry settings need 0 < base <= cap and at least one attempt, got "
                    + base + ", " + cap + ", " + maxAttempts);
        }
    }
}
