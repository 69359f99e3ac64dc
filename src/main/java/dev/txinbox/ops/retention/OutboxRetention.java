package dev.txinbox.ops.retention;

import java.time.Instant;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.persistence.EntityManager;

import org.hibernate.Session;
import org.jboss.logging.Logger;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.outbox.OutboxOperations;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;

/**
 * Deletes outbox events recorded longer ago than {@code txinbox.outbox.retention}, in short transactions of
 * {@code txinbox.outbox.retention-batch-size} rows, by one pod at a time (a transaction-level advisory lock), as
 * the inbox's RetentionJob does. With the relay on, only published or skipped events go: a pending one stays,
 * however old. With the relay off nothing marks rows, so age alone decides (another publisher, Debezium, read
 * them from the WAL long before). The sequence counters stay: they must never hand out a number again. This job
 * decides when and how much; the deletes are the outbox's own ({@link OutboxOperations#deleteRecordedBefore}).
 */
@ApplicationScoped
public class OutboxRetention {

    private static final Logger LOG = Logger.getLogger(OutboxRetention.class);
    /** Advisory lock key: "txoutbxR". */
    static final long LOCK_KEY = 0x74786f7574627852L;

    private final EntityManager entityManager;
    private final OutboxOperations outbox;
    private final TxinboxConfig.Outbox config;
    private final Counter deleted;

    public OutboxRetention(EntityManager entityManager, OutboxOperations outbox, TxinboxConfig txinbox,
            MeterRegistry registry) {
        this.entityManager = entityManager;
        this.outbox = outbox;
        this.config = txinbox.outbox();
        this.deleted = Counter.builder("txinbox.outbox.retention.deleted")
                .description("Outbox events deleted by the retention job").register(registry);
    }

    void registerCounter(@Observes StartupEvent started) {
        // The counter exists from the constructor; this only makes sure the bean is created at start.
    }

    @Scheduled(every = "${txinbox.retention.interval}", delayed = "1m",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void scheduled() {
        run();
    }

    /** Deletes batch after batch; returns how many, or -1 when another instance holds the lock. */
    public long run() {
        Instant cutoff = Instant.now().minus(config.retention());
        boolean doneOnly = config.relay().enabled();
        long total = 0;
        while (true) {
            Integer batch = QuarkusTransaction.requiringNew().call(() -> deleteBatch(cutoff, doneOnly));
            if (batch == null) {
                LOG.infof("outbox retention: deleted %d events (stopped: another instance holds the lock)", total);
                return total == 0 ? -1 : total;
            }
            total += batch;
            deleted.increment(batch);
            if (batch < config.retentionBatchSize()) {
                LOG.infof("outbox retention: deleted %d events recorded before %s", total, cutoff);
                return total;
            }
        }
    }

    /** One batch in the current transaction, once it holds the retention lock; null when another instance does. */
    private Integer deleteBatch(Instant cutoff, boolean doneOnly) {
        boolean held = entityManager.unwrap(Session.class)
                .doReturningWork(connection -> RetentionLock.tryHold(connection, LOCK_KEY));
        return held ? outbox.deleteRecordedBefore(cutoff, doneOnly, config.retentionBatchSize()) : null;
    }
}
