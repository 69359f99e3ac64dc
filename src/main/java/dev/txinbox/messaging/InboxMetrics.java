package dev.txinbox.messaging;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.inbox.Outcome;
import io.quarkus.runtime.StartupEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/** The inbox's Prometheus metrics (CONTRACT §5), tagged by consumer. */
@ApplicationScoped
public class InboxMetrics {

    private final MeterRegistry registry;
    /** Looking a meter up through its builder costs more than the record itself: once per consumer and outcome. */
    private final Map<String, OutcomeMeters> outcomes = new ConcurrentHashMap<>();

    private record OutcomeMeters(Counter messages, Timer processing, DistributionSummary attempts) {
    }

    /**
     * The stages of a message's way through the service ({@code txinbox_stage_seconds{consumer,stage}}), each
     * recorded once per message: a batch's transaction and commit count once for every message they carried.
     */
    public enum Stage {
        /** From the receive's answer until txinbox takes the message from the connector. */
        RECEIVE_BUFFER,
        /** From being taken until a worker starts the batch that holds it. */
        WAITING_FOR_WORKER,
        /** The batch's work in its transaction (all its passes, reruns included), until the commit. */
        TRANSACTION,
        /** The commit. */
        COMMIT,
        /** From the commit until SQS answered the delete (or the release) of the message. */
        SETTLEMENT;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final Map<String, Timer> stages = new ConcurrentHashMap<>();
    private final Map<String, DistributionSummary> batches = new ConcurrentHashMap<>();

    public InboxMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /**
     * Every counter of every consumer exists from the first scrape, at 0: {@code rate()} and the shipped
     * alerts need a series before the first message of each outcome.
     */
    void registerCounters(@Observes StartupEvent started, TxinboxConfig config) {
        for (String consumer : config.runningConsumers().keySet()) {
            for (Outcome outcome : Outcome.values()) {
                meters(consumer, outcome);
            }
            for (Stage stage : Stage.values()) {
                stage(consumer, stage);
            }
            batchSummary(consumer);
            heldBackCounter(consumer);
            expiredCounter(consumer);
            ackFailuresCounter(consumer);
        }
    }

    /** {@code txinbox_messages_total{consumer,outcome}} and {@code txinbox_processing_seconds}. */
    public void record(String consumer, Outcome outcome, Duration took, int attempts) {
        OutcomeMeters meters = meters(consumer, outcome);
        if (attempts > 0) {
            meters.attempts().record(attempts);
        }
        meters.messages().increment();
        meters.processing().record(took);
    }

    /** {@code txinbox_stage_seconds{consumer,stage}}: {@code messages} messages spent {@code nanos} in {@code stage}. */
    public void stage(String consumer, Stage stage, long nanos, int messages) {
        Timer timer = stage(consumer, stage);
        for (int i = 0; i < messages; i++) {
            timer.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
    }

    /** {@code txinbox_batch_messages{consumer}}: how many messages one transaction carried. */
    public void batch(String consumer, int messages) {
        batchSummary(consumer).record(messages);
    }

    private DistributionSummary batchSummary(String consumer) {
        return batches.computeIfAbsent(consumer, c -> DistributionSummary.builder("txinbox.batch.messages")
                .description("Messages per batch: one transaction, one commit")
                .tag("consumer", c).publishPercentileHistogram().minimumExpectedValue(1.0).maximumExpectedValue(1000.0)
                .register(registry));
    }

    /** A stage's timer as it stands: messages, their total time and the cumulative histogram buckets. */
    public io.micrometer.core.instrument.distribution.HistogramSnapshot stageSnapshot(String consumer, Stage stage) {
        return stage(consumer, stage).takeSnapshot();
    }

    private Timer stage(String consumer, Stage stage) {
        return stages.computeIfAbsent(consumer + '\0' + stage.label(), key -> Timer.builder("txinbox.stage")
                .description("Time a message spent in each stage of its way through the service")
                .tags("consumer", consumer, "stage", stage.label())
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(100_000)).maximumExpectedValue(Duration.ofSeconds(60))
                .register(registry));
    }

    /** How many messages of a consumer ended with {@code outcome} since the start (the counter's value). */
    public double count(String consumer, Outcome outcome) {
        return meters(consumer, outcome).messages().count();
    }

    private OutcomeMeters meters(String consumer, Outcome outcome) {
        return outcomes.computeIfAbsent(consumer + '\0' + outcome.label(), key -> new OutcomeMeters(
                Counter.builder("txinbox.messages")
                        .description("Received messages by final outcome")
                        .tags("consumer", consumer, "outcome", outcome.label())
                        .register(registry),
                Timer.builder("txinbox.processing")
                        .description("Time from taking a message to settling it with the broker")
                        .tags("consumer", consumer, "outcome", outcome.label())
                        .publishPercentileHistogram()
                        .register(registry),
                DistributionSummary.builder("txinbox.attempts")
                        .description("Attempts a message took, by outcome (1 = first try)")
                        .tags("consumer", consumer, "outcome", outcome.label())
                        .publishPercentileHistogram()
                        .minimumExpectedValue(1.0).maximumExpectedValue(100.0)
                        .register(registry)));
    }

    /** Messages released unprocessed so as not to overtake a failed message of their group. */
    public void heldBack(String consumer) {
        heldBackCounter(consumer).increment();
    }

    /** Messages that waited past their visibility timeout and were left to their redelivery. */
    public void expired(String consumer) {
        expiredCounter(consumer).increment();
    }

    /** Deletes or visibility changes SQS refused (the message comes back and is deduplicated). */
    public void ackFailed(String consumer) {
        ackFailuresCounter(consumer).increment();
    }

    private Counter heldBackCounter(String consumer) {
        return Counter.builder("txinbox.held.back").description("Messages released behind a failed message of their group")
                .tag("consumer", consumer).register(registry);
    }

    private Counter expiredCounter(String consumer) {
        return Counter.builder("txinbox.expired")
                .description("Messages left to their redelivery after waiting past the visibility timeout")
                .tag("consumer", consumer).register(registry);
    }

    private Counter ackFailuresCounter(String consumer) {
        return Counter.builder("txinbox.ack.failures").description("Delete or visibility calls refused by SQS")
                .tag("consumer", consumer).register(registry);
    }
}
