package dev.txinbox.ops.metrics;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.inbox.InboxReadModel;
import dev.txinbox.inbox.InboxStatus;
import dev.txinbox.messaging.ConsumerProgress;
import dev.txinbox.messaging.sqs.SqsInboxReceiver;
import dev.txinbox.messaging.sqs.SqsQueues;
import io.quarkus.scheduler.Scheduled;

/**
 * Per-consumer numbers for health, gauges and the admin API, refreshed on a schedule so that probes
 * and scrapes never wait for the database or SQS. Only cheap queries: the pending rows are under a
 * partial index.
 */
@ApplicationScoped
public class InboxStatistics {

    private static final Logger LOG = Logger.getLogger(InboxStatistics.class);
    private static final InboxReadModel.Unfinished NONE = new InboxReadModel.Unfinished(0, null);

    /**
     * One consumer's state.
     *
     * @param lagSeconds             now minus the send time of the message committed last, while anything
     *                               is waiting (0 when the queue is empty and nothing is in flight)
     * @param oldestPendingAgeSeconds age of the oldest message not finished: in flight, or FAILED
     * @param backlog                messages in the queue, visible plus in flight (null if SQS did not answer)
     * @param dlq                    messages in the dead-letter queue (null if SQS did not answer)
     */
    public record ConsumerStats(String consumer, double lagSeconds, double oldestPendingAgeSeconds, Long backlog,
            Long backlogInFlight, int inFlight, long parked, double oldestParkedAgeSeconds, long failed, Long dlq,
            boolean sqsReachable, boolean databaseReachable, Instant at) {
    }

    private final TxinboxConfig config;
    private final SqsInboxReceiver receiver;
    private final SqsQueues queues;
    private final InboxReadModel readModel;
    private final Map<String, ConsumerStats> latest = new ConcurrentHashMap<>();

    public InboxStatistics(TxinboxConfig config, SqsInboxReceiver receiver, SqsQueues queues, InboxReadModel readModel) {
        this.config = config;
        this.receiver = receiver;
        this.queues = queues;
        this.readModel = readModel;
    }

    public Map<String, ConsumerStats> latest() {
        if (latest.isEmpty()) {
            refresh();
        }
        return Map.copyOf(latest);
    }

    public Optional<ConsumerStats> latest(String consumer) {
        return Optional.ofNullable(latest().get(consumer));
    }

    @Scheduled(every = "${txinbox.health.refresh}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void refresh() {
        for (Map.Entry<String, TxinboxConfig.Consumer> entry : config.runningConsumers().entrySet()) {
            latest.put(entry.getKey(), compute(entry.getKey(), entry.getValue()));
        }
    }

    private ConsumerStats compute(String consumer, TxinboxConfig.Consumer settings) {
        Instant now = Instant.now();
        Long backlog = null, backlogInFlight = null, dlq = null;
        boolean sqsReachable = true;
        try {
            SqsQueues.Depth depth = queues.depth(settings.queue());
            backlog = depth.total();
            backlogInFlight = depth.inFlight();
            dlq = queues.depth(settings.dlq()).total();
        } catch (RuntimeException e) {
            sqsReachable = false;
            LOG.debugf("queue depth of %s unavailable: %s", settings.queue(), e.getMessage());
        }
        Map<InboxStatus, InboxReadModel.Unfinished> pending = Map.of();
        boolean databaseReachable = true;
        try {
            pending = readModel.unfinished(consumer);
        } catch (SQLException | RuntimeException e) {
            databaseReachable = false;
            LOG.debugf("pending entries of %s unavailable: %s", consumer, e.getMessage());
        }
        InboxReadModel.Unfinished parked = pending.getOrDefault(InboxStatus.PARKED, NONE);
        InboxReadModel.Unfinished failed = pending.getOrDefault(InboxStatus.FAILED, NONE);
        ConsumerProgress progress = receiver.progress(consumer);
        double oldestInFlight = progress.oldestInFlightSentAt().map(t -> seconds(t, now)).orElse(0.0);
        double oldestFailed = failed.count() > 0 ? seconds(failed.oldestReceivedAt(), now) : 0.0;
        boolean waiting = progress.inFlight() > 0 || (backlog != null && backlog > 0);
        double lag = !waiting ? 0.0
                : progress.lastCommittedSentAt().or(progress::oldestInFlightSentAt).map(t -> seconds(t, now)).orElse(0.0);
        return new ConsumerStats(consumer, lag, Math.max(oldestInFlight, oldestFailed), backlog, backlogInFlight,
                progress.inFlight(), parked.count(), parked.count() > 0 ? seconds(parked.oldestReceivedAt(), now) : 0.0,
                failed.count(), dlq, sqsReachable, databaseReachable, now);
    }

    private static double seconds(Instant from, Instant to) {
        return Math.max(0, Duration.between(from, to).toMillis() / 1000.0);
    }
}
