package dev.txinbox.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/** The relay's waits: an outage's, the whole relay's; a refusal's, one aggregate's. */
class BackoffTest {

    private static final Duration NO_CAP = Duration.ofDays(1);

    @Test
    void anOutageBacksOffFrom250MsDoublingUpTo30Seconds() {
        assertEquals(Duration.ofMillis(250), Backoff.outage(1, NO_CAP));
        assertEquals(Duration.ofMillis(500), Backoff.outage(2, NO_CAP));
        assertEquals(Duration.ofSeconds(16), Backoff.outage(7, NO_CAP));
        assertEquals(Duration.ofSeconds(30), Backoff.outage(8, NO_CAP));
        assertEquals(Duration.ofSeconds(30), Backoff.outage(1_000, NO_CAP), "no overflow however long it lasts");
    }

    @Test
    void aRetryCapBelow30SecondsBoundsTheOutagesBackoffToo() {
        assertEquals(Duration.ofMillis(250), Backoff.outage(1, Duration.ofSeconds(1)));
        assertEquals(Duration.ofSeconds(1), Backoff.outage(4, Duration.ofSeconds(1)));
    }

    @Test
    void aRefusedEventsAggregateWaitsTheBaseDoublingPerAttemptUpToTheCap() {
        Duration base = Duration.ofSeconds(1), cap = Duration.ofMinutes(5);
        assertEquals(Duration.ofSeconds(1), Backoff.retry(1, base, cap));
        assertEquals(Duration.ofSeconds(2), Backoff.retry(2, base, cap));
        assertEquals(Duration.ofSeconds(256), Backoff.retry(9, base, cap));
        assertEquals(cap, Backoff.retry(10, base, cap));
        assertEquals(cap, Backoff.retry(10_000, base, cap), "no overflow however often it was refused");
    }
}
