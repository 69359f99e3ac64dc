package dev.txinbox.ops.retention;

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
import dev.txinbox.inbox.InboxRetention;
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
 * PostgreSQL advisory lock and stops when another pod holds it. This job decides when and how much; the
 * deletes are the inbox's own ({@link InboxRetention#deleteFinished}), as every write of its tables is.
 *
 * <p>A row's deletion ends the deduplication of its event id. Redeliveries come at the latest after the
 * queue's message retention, so the retention here must be longer: checked at start-up.
 */
@ApplicationScoped
public class RetentionJob {

    private static final Logger LOG = Logger.getLogger(RetentionJob.class);
    /** Advisory lock key: "txinbox retention". */
    static final long LOCK_KEY = 0x7478696e626f7852L;

    public record Run(Map<String, Long> deleted, boolean lockedOut, Duration took) {

        public long total() {
            return deleted.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private final EntityManager entityManager;
    private final InboxRetention inbox;
    private final TxinboxConfig.Retention config;
    private final MeterRegistry registry;
    private final TxinboxConfig txinbox;
    private final SqsQueues queues;

    public RetentionJob(EntityManager entityManager, InboxRetention inbox, TxinboxConfig txinbox,
            MeterRegistry registry, SqsQueues queues) {
        this.entityManager = entityManager;
        this.inbox = inbox;
        this.config = txinbox.retention();
        this.registry = registry;
        this.txinbox = txinbox;
        this.queues = queues;
    }

    @Scheduled(every = "${txinbox.retention.interval}", delayed = "1m",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
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
            Instant cutoff = now.minus(config.processed().compareTo(config.dead()) > 0 ? config.processed()
                    : config.dead());
            QuarkusTransaction.requiringNew().run(() -> inbox.deleteOrphanedAttempts(cutoff));
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
        while (true) {
            Map<String, Long> batch = QuarkusTransaction.requiringNew().call(() -> deleteBatch(statuses, cutoff));
            if (batch == null) {
                return false;
            }
            batch.forEach((consumer, count) -> deleted.merge(consumer, count, Long::sum));
            if (batch.values().stream().mapToLong(Long::longValue).sum() < config.batchSize()) {
                return true;
            }
        }
    }

    /** One batch in the current transaction, once it holds the retention lock; null when another instance does. */
    private Map<String, Long> deleteBatch(List<InboxStatus> statuses, Instant cutoff) {
        boolean held = entityManager.unwrap(Session.class)
                .doReturningWork(connection -> RetentionLock.tryHold(connection, LOCK_KEY));
        return held ? inbox.deleteFinished(statuses, cutoff, config.batchSize()) : null;
    }

    /**
     * Every counter exists from the first scrape, at 0: an alert on {@code increase(…[1d]) == 0} needs a
     * series to fire on, and {@code rate()} needs a first sample.
     */
    void registerCounters(@Observes StartupEvent started) {
        txinbox.runningConsumers().keySet().forEach(consumer -> deletedCounter(consumer));
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
        CompletableFuture.runAsync(() -> txinbox.runningConsumers().forEach((consumer, settings) -> {
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
