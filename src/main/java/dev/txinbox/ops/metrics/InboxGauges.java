package dev.txinbox.ops.metrics;

import java.util.function.ToDoubleFunction;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import dev.txinbox.config.TxinboxConfig;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;

/** The state gauges (CONTRACT §5), per consumer, read from {@link InboxStatistics}' latest refresh. */
@ApplicationScoped
public class InboxGauges {

    void register(@Observes StartupEvent started, MeterRegistry registry, TxinboxConfig config,
            InboxStatistics statistics) {
        for (String consumer : config.runningConsumers().keySet()) {
            gauge(registry, statistics, consumer, "txinbox.lag.seconds",
                    "Now minus the send time of the message committed last, while messages wait", s -> s.lagSeconds());
            gauge(registry, statistics, consumer, "txinbox.oldest.pending.seconds",
                    "Age of the oldest message not yet finished (in flight or FAILED)", s -> s.oldestPendingAgeSeconds());
            gauge(registry, statistics, consumer, "txinbox.parked.messages",
                    "Events parked until a gap in their stream fills", s -> s.parked());
            gauge(registry, statistics, consumer, "txinbox.oldest.parked.seconds",
                    "Age of the oldest parked event", s -> s.oldestParkedAgeSeconds());
            gauge(registry, statistics, consumer, "txinbox.failed.messages",
                    "Entries whose last attempt failed and that wait for a retry", s -> s.failed());
            gauge(registry, statistics, consumer, "txinbox.backlog.messages",
                    "Messages in the source queue, visible and in flight", s -> nanIfNull(s.backlog()));
            gauge(registry, statistics, consumer, "txinbox.dlq.messages",
                    "Messages in the consumer's dead-letter queue", s -> nanIfNull(s.dlq()));
        }
    }

    private static void gauge(MeterRegistry registry, InboxStatistics statistics, String consumer, String name,
            String description, ToDoubleFunction<InboxStatistics.ConsumerStats> value) {
        Gauge.builder(name, statistics, s -> s.latest(consumer).map(value::applyAsDouble).orElse(Double.NaN))
                .description(description).tag("consumer", consumer).register(registry);
    }

    private static double nanIfNull(Long value) {
        return value == null ? Double.NaN : value;
    }
}
