package dev.txinbox.ops.metrics;

import java.time.Instant;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import dev.txinbox.outbox.EmbeddedRelay;
import dev.txinbox.outbox.OutboxOperations;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;

/**
 * What is pending in the outbox, refreshed every {@code txinbox.health.refresh} for readiness, the gauges
 * ({@code txinbox_outbox_pending}, {@code txinbox_outbox_oldest_pending_seconds},
 * {@code txinbox_outbox_waiting_streams}) and the admin API, so that a scrape never queries the table. With the
 * relay disabled nothing marks rows, "pending" means nothing, and every number stays 0.
 */
@ApplicationScoped
public class OutboxStatistics {

    private static final Logger LOG = Logger.getLogger(OutboxStatistics.class);

    /** One reading; {@code readable} false when the last query failed (the numbers are the previous ones). */
    public record Pending(long pending, double oldestPendingSeconds, long waitingStreams, Instant at, boolean readable) {
    }

    private final OutboxOperations operations;
    private final EmbeddedRelay relay;
    private volatile Pending latest = new Pending(0, 0, 0, Instant.now(), true);

    public OutboxStatistics(OutboxOperations operations, EmbeddedRelay relay) {
        this.operations = operations;
        this.relay = relay;
    }

    public Pending latest() {
        return latest;
    }

    void register(@Observes StartupEvent started, MeterRegistry registry) {
        Gauge.builder("txinbox.outbox.pending", this, s -> s.latest().pending())
                .description("Outbox events not yet published (nor skipped)").register(registry);
        Gauge.builder("txinbox.outbox.oldest.pending.seconds", this, s -> s.latest().oldestPendingSeconds())
                .description("Age of the oldest outbox event not yet published").register(registry);
        Gauge.builder("txinbox.outbox.waiting.streams", this, s -> s.latest().waitingStreams())
                .description("Aggregates whose next event the broker refused: they wait for a retry").register(registry);
        refresh();
    }

    @Scheduled(every = "${txinbox.health.refresh}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    public void refresh() {
        if (!relay.enabled()) {
            return;
        }
        try {
            OutboxOperations.Backlog now = QuarkusTransaction.requiringNew().call(operations::backlog);
            latest = new Pending(now.pending(), now.oldestPendingSeconds(), now.waitingStreams(), Instant.now(), true);
        } catch (RuntimeException e) {
            LOG.debugf("outbox statistics: %s", e.getMessage());
            Pending previous = latest;
            latest = new Pending(previous.pending(), previous.oldestPendingSeconds(), previous.waitingStreams(),
                    previous.at(), false);
        }
    }
}
