package dev.txinbox.outbox;

import java.time.Instant;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.persistence.EntityManager;

import org.jboss.logging.Logger;

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

    private final EntityManager entityManager;
    private final EmbeddedRelay relay;
    private volatile Pending latest = new Pending(0, 0, 0, Instant.now(), true);

    public OutboxStatistics(EntityManager entityManager, EmbeddedRelay relay) {
        this.entityManager = entityManager;
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

    @Scheduled(every = "${txinbox.health.refresh}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    public void refresh() {
        if (!relay.enabled()) {
            return;
        }
        try {
            Object[] row = QuarkusTransaction.requiringNew().call(() -> (Object[]) entityManager.createNativeQuery("""
                    select count(*),
                           coalesce(extract(epoch from now() - min(timestamp)), 0),
                           count(distinct aggregateid) filter (where attempts > 0)
                      from outbox_events where published_at is null and skipped_at is null""", Object[].class)
                    .getSingleResult());
            latest = new Pending(((Number) row[0]).longValue(), Math.max(0, ((Number) row[1]).doubleValue()),
                    ((Number) row[2]).longValue(), Instant.now(), true);
        } catch (RuntimeException e) {
            LOG.debugf("outbox statistics: %s", e.getMessage());
            Pending previous = latest;
            latest = new Pending(previous.pending(), previous.oldestPendingSeconds(), previous.waitingStreams(),
                    previous.at(), false);
        }
    }
}
