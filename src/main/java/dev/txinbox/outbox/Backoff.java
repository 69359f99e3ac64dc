package dev.txinbox.outbox;

import java.time.Duration;

/** The relay's waits after a failure: both grow by doubling, and neither ever exceeds its cap. */
final class Backoff {

    /** The longest an outage makes the relay wait between two tries, unless {@code retry-cap} is shorter. */
    static final Duration MAX_OUTAGE = Duration.ofSeconds(30);

    private Backoff() {
    }

    /** After the {@code failures}th failure in a row of the broker or the database: 250 ms doubling. */
    static Duration outage(int failures, Duration cap) {
        Duration backoff = Duration.ofMillis(Math.min(250L << Math.min(failures - 1, 10), MAX_OUTAGE.toMillis()));
        return backoff.compareTo(cap) > 0 ? cap : backoff;
    }

    /** How long an aggregate waits after its head was refused for the {@code attempts}th time. */
    static Duration retry(int attempts, Duration base, Duration cap) {
        Duration delay = base.multipliedBy(1L << Math.min(attempts - 1, 20));
        return delay.compareTo(cap) > 0 ? cap : delay;
    }
}
