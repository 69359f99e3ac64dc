package dev.txinbox.ops.console;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

/** The sign-in slow-down, with a hand-turned clock. */
class SignInThrottleTest {

    private Instant now = Instant.parse("2026-12-02T10:00:00Z");
    private final SignInThrottle throttle = new SignInThrottle(Duration.ofSeconds(1), new ConsoleClock() {
        @Override
        public Instant now() {
            return now;
        }
    });

    @Test
    void everyRefusalInARowDoublesTheWaitUpToThirtySeconds() {
        assertEquals(Duration.ZERO, throttle.waitFor("10.0.0.1"));
        long[] expected = { 1, 2, 4, 8, 16, 30, 30 };
        for (long seconds : expected) {
            assertEquals(Duration.ofSeconds(seconds), throttle.refused("10.0.0.1"));
            // The answer comes after the wait, and the client is not heard for as long again after it.
            assertEquals(Duration.ofSeconds(2 * seconds), throttle.waitFor("10.0.0.1"));
            now = now.plusSeconds(2 * seconds);
            assertEquals(Duration.ZERO, throttle.waitFor("10.0.0.1"));
        }
        assertEquals(Duration.ZERO, throttle.waitFor("10.0.0.2"), "another client is not slowed down");
    }

    @Test
    void aSuccessOrAQuarterOfAnHourForgetsTheRefusals() {
        throttle.refused("10.0.0.1");
        throttle.refused("10.0.0.1");
        throttle.succeeded("10.0.0.1");
        assertEquals(Duration.ZERO, throttle.waitFor("10.0.0.1"));
        assertEquals(Duration.ofSeconds(1), throttle.refused("10.0.0.1"));

        assertEquals(Duration.ofSeconds(2), throttle.refused("10.0.0.1"));
        now = now.plus(Duration.ofMinutes(16));
        assertEquals(Duration.ofSeconds(1), throttle.refused("10.0.0.1"));
    }
}
