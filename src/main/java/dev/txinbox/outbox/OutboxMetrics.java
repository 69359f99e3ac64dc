package dev.txinbox.outbox;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.runtime.StartupEvent;

/**
 * The relay's counters (CONTRACT §6): {@code txinbox_outbox_published_total} and
 * {@code txinbox_outbox_failures_total{reason}}, every reason at 0 from the first scrape, so that alerts on
 * {@code increase()} have a series to fire on. The pending gauges are {@code ops.metrics.OutboxStatistics}'.
 */
@ApplicationScoped
public class OutboxMetrics {

    /** A send failed because the broker did not answer, throttled or timed out: no attempt counted. */
    public static final String UNAVAILABLE = "unavailable";
    /** The queue is missing or access is denied. */
    public static final String CONFIGURATION = "configuration";
    /** The broker refused the event itself (too large, invalid): an attempt counted, its stream waits. */
    public static final String REJECTED = "rejected";
    static final List<String> REASONS = List.of(UNAVAILABLE, CONFIGURATION, REJECTED);

    private final MeterRegistry registry;

    public OutboxMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    void register(@Observes StartupEvent started) {
        published(0);
        REASONS.forEach(reason -> failure(reason, 0));
        batchSize();
        commitToSend();
    }

    void published(int count) {
        Counter.builder("txinbox.outbox.published").description("Outbox events the relay published")
                .register(registry).increment(count);
    }

    void failure(String reason, int count) {
        Counter.builder("txinbox.outbox.failures").description("Outbox sends that failed, by reason")
                .tag("reason", reason).register(registry).increment(count);
    }

    DistributionSummary batchSize() {
        return DistributionSummary.builder("txinbox.outbox.batch.size").description("Events per SendMessageBatch")
                .register(registry);
    }

    /** From the event's recording to the broker's acknowledgement. */
    Timer commitToSend() {
        return Timer.builder("txinbox.outbox.send.latency").description("From recording an event to its publication")
                .publishPercentileHistogram().register(registry);
    }
}
