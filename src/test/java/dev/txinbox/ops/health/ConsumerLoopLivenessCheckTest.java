package dev.txinbox.ops.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** One dead or stuck receive loop of two is a dead consumer loop, though the other keeps the consumer going. */
class ConsumerLoopLivenessCheckTest {

    private static final Duration STALL_AFTER = Duration.ofMinutes(2);
    private final Instant now = Instant.parse("2026-12-08T10:00:00Z");
    private final Instant started = now.minus(Duration.ofHours(1));

    @Test
    void aLoopSilentWhileTheOtherPollsIsNamed() {
        Optional<String> why = ConsumerLoopLivenessCheck.silentLoop(Map.of("1", now.minusSeconds(1),
                "2", now.minusSeconds(130)), 2, now, STALL_AFTER, started);
        assertEquals(Optional.of("receive loop 2 of 2 has not polled for 130 s while loop 1 polls"), why);
    }

    @Test
    void aLoopThatNeverPolledIsCountedOnceTheStartIsLongEnoughAgo() {
        Map<String, Instant> polls = Map.of("1", now.minusSeconds(1));
        assertEquals(Optional.of("only 1 of 2 receive loops ever polled (1)"),
                ConsumerLoopLivenessCheck.silentLoop(polls, 2, now, STALL_AFTER, started));
        assertTrue(ConsumerLoopLivenessCheck.silentLoop(polls, 2, now, STALL_AFTER, now.minusSeconds(30)).isEmpty(),
                "just started: the second loop's first poll may still come");
    }

    @Test
    void loopsSilentTogetherAreBackpressureNotADeadLoop() {
        assertTrue(ConsumerLoopLivenessCheck.silentLoop(Map.of("1", now.minusSeconds(300),
                "2", now.minusSeconds(200)), 2, now, STALL_AFTER, started).isEmpty());
        assertTrue(ConsumerLoopLivenessCheck.silentLoop(Map.of("1", now.minusSeconds(3),
                "2", now.minusSeconds(20)), 2, now, STALL_AFTER, started).isEmpty());
    }
}
