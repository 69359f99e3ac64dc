package dev.txinbox.ops.console;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;

import dev.txinbox.inbox.Outcome;
import dev.txinbox.messaging.InboxMetrics;
import dev.txinbox.ops.admin.InboxRepairs;
import dev.txinbox.ops.metrics.InboxStatistics;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.quarkus.scheduler.Scheduled;

/**
 * The numbers behind the overview's plots: per consumer and minute, how many messages ended in each outcome
 * and the highest lag seen. Every {@code txinbox.console.sample-every} it reads the outcome counters
 * ({@code txinbox_messages_total}, through {@link InboxMetrics}) and adds what they grew by since the last
 * sample to the current minute, and takes the lag from {@link InboxStatistics}' latest refresh. The last
 * hour is kept, in memory: it survives a page reload, not a restart, and each instance counts only the
 * messages it processed itself (Prometheus has the whole history of every instance).
 */
@ApplicationScoped
public class OutcomeHistory {

    public static final int MINUTES = 60;

    /** One minute of one consumer: outcomes counted in it, and the highest lag sampled in it. */
    public record Minute(Instant start, Map<Outcome, Long> outcomes, double maxLagSeconds) {

        public long count(Outcome outcome) {
            return outcomes.getOrDefault(outcome, 0L);
        }
    }

    /** One stage of a message's way through the service over the last minute or so: messages, mean, quantiles. */
    public record StageTime(String stage, long messages, double meanMs, double p50Ms, double p99Ms) {
    }

    /** The stage timers as one sample read them. */
    private record StageSample(Instant at, Map<InboxMetrics.Stage, HistogramSnapshot> stages) {
    }

    private final OutcomeMinutes minutes = new OutcomeMinutes();
    private final Map<String, ArrayDeque<StageSample>> stageSamples = new HashMap<>();
    private final InboxRepairs operations;
    private final InboxMetrics metrics;
    private final InboxStatistics statistics;
    private final ConsoleClock clock;

    public OutcomeHistory(InboxRepairs operations, InboxMetrics metrics, InboxStatistics statistics,
            ConsoleClock clock) {
        this.operations = operations;
        this.metrics = metrics;
        this.statistics = statistics;
        this.clock = clock;
    }

    @Scheduled(every = "${txinbox.console.sample-every}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    public synchronized void sample() {
        Instant now = clock.now();
        for (String consumer : operations.consumerNames()) {
            OptionalDouble lag = statistics.latest(consumer).map(s -> OptionalDouble.of(s.lagSeconds()))
                    .orElse(OptionalDouble.empty());
            minutes.sample(consumer, now, outcome -> metrics.count(consumer, outcome), lag);
            sampleStages(consumer);
        }
    }

    /** Keeps the stage timers' samples of the last two minutes, so that {@link #lastMinuteStages} has a minute. */
    private void sampleStages(String consumer) {
        Instant now = clock.now();
        Map<InboxMetrics.Stage, HistogramSnapshot> snapshots = new EnumMap<>(InboxMetrics.Stage.class);
        for (InboxMetrics.Stage stage : InboxMetrics.Stage.values()) {
            snapshots.put(stage, metrics.stageSnapshot(consumer, stage));
        }
        ArrayDeque<StageSample> samples = stageSamples.computeIfAbsent(consumer, c -> new ArrayDeque<>());
        if (!samples.isEmpty() && samples.peekLast().at().isAfter(now)) {
            samples.clear(); // a clock set back: what came before says nothing about the minute before now
        }
        samples.addLast(new StageSample(now, snapshots));
        while (samples.size() > 2 && samples.peekFirst().at().isBefore(now.minusSeconds(2 * 60))) {
            samples.pollFirst();
        }
    }

    /**
     * Where a message's time went in the last minute (from the newest sample back to the latest one at least a
     * minute older, or the oldest kept): per stage, the messages recorded, their mean, and the quantiles (the upper
     * bound of the histogram bucket they fall in). Empty before two samples.
     */
    public synchronized List<StageTime> lastMinuteStages(String consumer) {
        ArrayDeque<StageSample> samples = stageSamples.get(consumer);
        if (samples == null || samples.size() < 2) {
            return List.of();
        }
        StageSample last = samples.peekLast();
        StageSample from = samples.peekFirst();
        for (StageSample sample : samples) {
            if (!sample.at().isAfter(last.at().minusSeconds(60))) {
                from = sample;
            }
        }
        List<StageTime> times = new ArrayList<>();
        for (InboxMetrics.Stage stage : InboxMetrics.Stage.values()) {
            times.add(between(stage.label(), from.stages().get(stage), last.stages().get(stage)));
        }
        return times;
    }

    private static StageTime between(String stage, HistogramSnapshot before, HistogramSnapshot after) {
        long messages = after.count() - before.count();
        if (messages <= 0) {
            return new StageTime(stage, 0, 0, 0, 0);
        }
        double mean = (after.total(TimeUnit.MILLISECONDS) - before.total(TimeUnit.MILLISECONDS)) / messages;
        CountAtBucket[] now = after.histogramCounts(), then = before.histogramCounts();
        return new StageTime(stage, messages, mean, quantile(now, then, messages, 0.5), quantile(now, then, messages, 0.99));
    }

    private static double quantile(CountAtBucket[] now, CountAtBucket[] then, long messages, double q) {
        for (int i = 0; i < now.length; i++) {
            double counted = now[i].count() - (i < then.length ? then[i].count() : 0);
            if (counted >= q * messages) {
                return now[i].bucket(TimeUnit.MILLISECONDS);
            }
        }
        return Double.POSITIVE_INFINITY;
    }

    /** The sampled minutes of the last hour up to now, oldest first; minutes nobody sampled are absent. */
    public synchronized List<Minute> lastHour(String consumer) {
        return minutes.lastHour(consumer, clock.now());
    }

    static long minuteOf(Instant instant) {
        return Math.floorDiv(instant.getEpochSecond(), 60);
    }
}
