package dev.txinbox.ops.console;

import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

import dev.txinbox.inbox.Outcome;
import dev.txinbox.ops.console.OutcomeHistory.Minute;

/**
 * The per-minute counting behind {@link OutcomeHistory}, apart from the meters and the clock it reads: each sample
 * adds what a consumer's outcome counters grew by since the one before to the minute it is taken in, and the last
 * hour is kept. Not thread-safe: its owner serialises the calls.
 */
final class OutcomeMinutes {

    private static final class Bucket {
        final long[] outcomes = new long[Outcome.values().length];
        double maxLagSeconds;
    }

    private final Map<String, NavigableMap<Long, Bucket>> minutes = new HashMap<>();
    private final Map<String, double[]> counted = new HashMap<>();

    /** Adds {@code consumer}'s counters' growth, and its lag if known, to the minute of {@code now}. */
    void sample(String consumer, Instant now, ToDoubleFunction<Outcome> counter, OptionalDouble lagSeconds) {
        long minute = OutcomeHistory.minuteOf(now);
        NavigableMap<Long, Bucket> series = minutes.computeIfAbsent(consumer, c -> new TreeMap<>());
        Bucket bucket = series.computeIfAbsent(minute, m -> new Bucket());
        // The counters start at 0 with the service, so the first sample counts everything since the start.
        double[] before = counted.computeIfAbsent(consumer, c -> new double[Outcome.values().length]);
        for (Outcome outcome : Outcome.values()) {
            double count = counter.applyAsDouble(outcome);
            bucket.outcomes[outcome.ordinal()] += Math.max(0, Math.round(count - before[outcome.ordinal()]));
            before[outcome.ordinal()] = count;
        }
        lagSeconds.ifPresent(lag -> bucket.maxLagSeconds = Math.max(bucket.maxLagSeconds, lag));
        series.headMap(minute - OutcomeHistory.MINUTES, true).clear();
        // A clock set back (a test's, or a corrected one) must not leave minutes from its future behind.
        series.tailMap(minute, false).clear();
    }

    /** The sampled minutes of the hour up to {@code now}, oldest first; minutes nobody sampled are absent. */
    List<Minute> lastHour(String consumer, Instant now) {
        long minute = OutcomeHistory.minuteOf(now);
        List<Minute> result = new ArrayList<>();
        NavigableMap<Long, Bucket> series = minutes.getOrDefault(consumer, new TreeMap<>());
        for (Map.Entry<Long, Bucket> entry : series.subMap(minute - OutcomeHistory.MINUTES + 1, true, minute, true).entrySet()) {
            Map<Outcome, Long> outcomes = new EnumMap<>(Outcome.class);
            for (Outcome outcome : Outcome.values()) {
                outcomes.put(outcome, entry.getValue().outcomes[outcome.ordinal()]);
            }
            result.add(new Minute(Instant.ofEpochSecond(entry.getKey() * 60), outcomes, entry.getValue().maxLagSeconds));
        }
        return result;
    }
}
