package dev.txinbox.ops;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.persistence.EntityManager;

import org.hibernate.Session;
import org.jboss.logging.Logger;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.inbox.InboxStatus;
import dev.txinbox.messaging.sqs.SqsQueues;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;

/**
 * Deletes finished inbox rows once they are too old to matter: PROCESSED, STALE and REJECTED after
 * {@code txinbox.retention.processed}, DEAD after {@code txinbox.retention.dead}; never PARKED or
 * FAILED, which are still waiting. In short transactions of {@code batch-size} rows, so that it never
 * holds locks the consumers need, and by one pod at a time: each batch takes a transaction-level
 * PostgreSQL advisory lock and stops when another pod holds it.
 *
 * <p>A row's deletion ends the deduplication of its event id. Redeliveries come at the latest after the
 * queue's message retention, so the retention here must be longer: checked at start-up.
 */
@ApplicationScoped
public class RetentionJob {

    private static final Logger LOG = Logger.getLogger(RetentionJob.class);
    /** Advisory lock key: "txinbox retention". */
    static final long LOCK_KEY = 0x7478696e626f7852L;

    private static final String DELETE_BATCH = """
            with doomed as (
                select id from inbox_messages
                 where status = any (?) and processed_at < ?
                 limit ? for update skip locked),
            deleted as (
                delete from inbox_messages m using doomed where m.id = doomed.id returning m.consumer_name)
            select consumer_name, count(*) from deleted group by consumer_name
            """;

    public record Run(Map<String, Long> deleted, boolean lockedOut, Duration took) {

        public long total() {
            return deleted.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private final EntityManager entityManager;
    private final TxinboxConfig.Retention config;
    private final MeterRegistry registry;
    private final TxinboxConfig txinbox;
    private final SqsQueues queues;

    public RetentionJob(EntityManager entityManager, TxinboxConfig txinbox, MeterRegistry registry, SqsQueues queues) {
        this.entityManager = entityManager;
        this.config = txinbox.retention();
        this.registry = registry;
        this.txinbox = txinbox;
        this.queues = queues;
    }

    @Scheduled(every = "${txinbox.retention.interval}", delayed = "1m",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void scheduled() {
        run();
    }

    public Run run() {
        long started = System.nanoTime();
        Map<String, Long> deleted = new HashMap<>();
        Instant now = Instant.now();
        boolean lockedOut = !purge(List.of(InboxStatus.PROCESSED, InboxStatus.STALE, InboxStatus.REJECTED),
                now.minus(config.processed()), deleted)
                || !purge(List.of(InboxStatus.DEAD), now.minus(config.dead()), deleted);
        if (!lockedOut) {
            deleteOrphanedAttempts(now.minus(config.processed().compareTo(config.dead()) > 0 ? config.processed()
                    : config.dead()));
        }
        Run run = new Run(deleted, lockedOut, Duration.ofNanos(System.nanoTime() - started));
        deleted.forEach((consumer, count) -> deletedCounter(consumer).increment(count));
        registry.counter("txinbox.retention.runs", "result", lockedOut ? "locked_out" : "completed").increment();
        LOG.infof("retention: deleted %d inbox rows %s in %d ms%s", run.total(), deleted, run.took().toMillis(),
                lockedOut ? " (stopped: another instance holds the retention lock)" : "");
        return run;
    }

    /** Deletes batch after batch; false when another instance holds the lock. */
    private boolean purge(List<InboxStatus> statuses, Instant cutoff, Map<String, Long> deleted) {
        String[] names = statuses.stream().map(Enum::name).toArray(String[]::new);
        while (true) {
            Map<String, Long> batch = QuarkusTransaction.requiringNew().call(() -> deleteBatch(names, cutoff));
            if (batch == null) {
                return false;
            }
            batch.forEach((consumer, count) -> deleted.merge(consumer, count, Long::sum));
            if (batch.values().stream().mapToLong(Long::longValue).sum() < config.batchSize()) {
                return true;
            }
        }
    }

    private Map<String, Long> deleteBatch(String[] statuses, Instant cutoff) {
        return entityManager.unwrap(Session.class).doReturningWork(connection -> {
            if (!RetentionLock.tryHold(connection, LOCK_KEY)) {
                return null;
            }
            Map<String, Long> counts = new HashMap<>();
            try (PreparedStatement ps = connection.prepareStatement(DELETE_BATCH)) {
                ps.setArray(1, connection.createArrayOf("text", statuses));
                ps.setTimestamp(2, Timestamp.from(cutoff));
                ps.setInt(3, config.batchSize());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        counts.put(rs.getString(1), rs.getLong(2));
                    }
                }
            }
            return counts;
        });
    }

    private void deleteOrphanedAttempts(Instant cutoff) {
        QuarkusTransaction.requiringNew().run(() -> entityManager.unwrap(Session.class).doWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement("delete from inbox_attempts a where a.failed_at < ?"
                    + " and not exists (select 1 from inbox_messages m where m.consumer_name = a.consumer_name"
                    + " and m.message_id = a.message_id)")) {
                ps.setTimestamp(1, Timestamp.from(cutoff));
                ps.executeUpdate();
            }
        }));
    }

    /**
     * Every counter exists from the first scrape, at 0: an alert on {@code increase(…[1d]) == 0} needs a
     * series to fire on, and {@code rate()} needs a first sample.
     */
    void registerCounters(@Observes StartupEvent started) {
        txinbox.consumers().keySet().forEach(consumer -> deletedCounter(consumer));
        for (String result : new String[] { "completed", "locked_out" }) {
            registry.counter("txinbox.retention.runs", "result", result);
        }
    }

    private Counter deletedCounter(String consumer) {
        return Counter.builder("txinbox.retention.deleted").description("Inbox rows deleted by the retention job")
                .tag("consumer", consumer).register(registry);
    }

    /** Deduplication must outlive redeliveries: warn when a queue keeps messages longer than the inbox keeps ids. */
    void checkAgainstQueues(@Observes StartupEvent started) {
        CompletableFuture.runAsync(() -> txinbox.consumers().forEach((consumer, settings) -> {
            try {
                Duration queueRetention = queues.retentionPeriod(settings.queue());
                if (config.processed().compareTo(queueRetention) < 0) {
                    LOG.errorf("RETENTION TOO SHORT for consumer %s: inbox rows are deleted after %s but queue %s keeps"
                            + " messages for %s; a redelivery after the inbox forgot its event id would apply twice."
                            + " Set txinbox.retention.processed (TXINBOX_RETENTION_PROCESSED) above the queue's"
                            + " retention.", consumer, config.processed(), settings.queue(), queueRetention);
                }
            } catch (RuntimeException e) {
                LOG.warnf("could not compare the retention with queue %s's: %s", settings.queue(), e.getMessage());
            }
        }));
    }
}
