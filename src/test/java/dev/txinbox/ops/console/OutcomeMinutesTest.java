package dev.txinbox.ops.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

import org.junit.jupiter.api.Test;

import dev.txinbox.inbox.Outcome;
import dev.txinbox.ops.console.OutcomeHistory.Minute;

/**
 * The overview's per-minute counting: counters sampled now and then, the growth put into the minute of the sample.
 * Hand-turned counters and time; no meters, no browser.
 */
class OutcomeMinutesTest {

    private static final Instant T0 = Instant.parse("2026-12-05T10:00:00Z");

    private final OutcomeMinutes minutes = new OutcomeMinutes();
    private final Map<Outcome, Double> counters = new EnumMap<>(Outcome.class);

    private void count(Outcome outcome, int more) {
        counters.merge(outcome, (double) more, Double::sum);
    }

    private void sample(Instant at) {
        sample(at, OptionalDouble.empty());
    }

    private void sample(Instant at, OptionalDouble lag) {
        minutes.sample("orders", at, o -> counters.getOrDefault(o, 0.0), lag);
    }

    private static Instant minute(int m) {
        return T0.plus(Duration.ofMinutes(m));
    }

    @Test
    void whatTheCountersGrewByGoesToTheMinuteOfTheSample() {
        count(Outcome.PROCESSED, 3);
        sample(minute(0).plusSeconds(5)); // all since the start: the counters began at 0
        count(Outcome.PROCESSED, 2);
        count(Outcome.DUPLICATE, 1);
        sample(minute(0).plusSeconds(50));
        count(Outcome.PROCESSED, 4);
        sample(minute(1).plusSeconds(10));

        List<Minute> hour = minutes.lastHour("orders", minute(1).plusSeconds(30));
        assertEquals(List.of(minute(0), minute(1)), hour.stream().map(Minute::start).toList());
        assertEquals(5, hour.get(0).count(Outcome.PROCESSED));
        assertEquals(1, hour.get(0).count(Outcome.DUPLICATE));
        assertEquals(4, hour.get(1).count(Outcome.PROCESSED));
        assertEquals(0, hour.get(1).count(Outcome.DUPLICATE));
    }

    @Test
    void aMinuteNobodySampledIsAbsentNotZero() {
        sample(minute(0));
        sample(minute(2));
        assertEquals(List.of(minute(0), minute(2)),
                minutes.lastHour("orders", minute(2)).stream().map(Minute::start).toList());
    }

    @Test
    void theHighestLagOfTheMinuteIsKept() {
        sample(minute(0), OptionalDouble.of(2.5));
        sample(minute(0).plusSeconds(20), OptionalDouble.of(7.0));
        sample(minute(0).plusSeconds(40), OptionalDouble.of(1.0));
        sample(minute(0).plusSeconds(50));
        assertEquals(7.0, minutes.lastHour("orders", minute(0)).get(0).maxLagSeconds(), 0.0);
    }

    @Test
    void onlyTheLastHourIsKept() {
        for (int m = 0; m <= 90; m += 10) {
            count(Outcome.PROCESSED, 1);
            sample(minute(m));
        }
        List<Minute> hour = minutes.lastHour("orders", minute(90));
        assertEquals(minute(40), hour.get(0).start());
        assertEquals(6, hour.size());
    }

    @Test
    void aClockSetBackDropsTheMinutesOfItsFuture() {
        count(Outcome.PROCESSED, 1);
        sample(minute(5));
        count(Outcome.PROCESSED, 1);
        sample(minute(2));
        List<Minute> hour = minutes.lastHour("orders", minute(10));
        assertEquals(List.of(minute(2)), hour.stream().map(Minute::start).toList());
        assertEquals(1, hour.get(0).count(Outcome.PROCESSED));
    }

    @Test
    void aCounterThatWentDownCountsNothingRatherThanANegativeNumber() {
        count(Outcome.PROCESSED, 5);
        sample(minute(0));
        counters.put(Outcome.PROCESSED, 2.0);
        sample(minute(1));
        assertEquals(0, minutes.lastHour("orders", minute(1)).get(1).count(Outcome.PROCESSED));
    }

    @Test
    void eachConsumerHasItsOwnMinutes() {
        count(Outcome.PROCESSED, 3);
        sample(minute(0));
        minutes.sample("ledger", minute(0), o -> 1.0, OptionalDouble.empty());
        assertEquals(3, minutes.lastHour("orders", minute(0)).get(0).count(Outcome.PROCESSED));
        assertEquals(1, minutes.lastHour("ledger", minute(0)).get(0).count(Outcome.REJECTED));
        assertTrue(minutes.lastHour("notifications", minute(0)).isEmpty());
    }
}
