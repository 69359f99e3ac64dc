package dev.txinbox.messaging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.inbox.FailurePolicy;
import dev.txinbox.inbox.Inbox;
import dev.txinbox.inbox.InboxResult;
import dev.txinbox.inbox.IncomingMessage;
import dev.txinbox.inbox.Outcome;
import io.quarkus.runtime.ShutdownEvent;
import io.smallrye.reactive.messaging.aws.sqs.SqsIncomingMetadata;

/**
 * The pipeline between the SQS channels and the inbox. Each received message is queued behind its
 * group ({@link BatchDispatcher}); a worker takes whatever is ready as one batch, drops what it must not
 * process (expired copies, messages behind a failed one of their group), runs the rest through the
 * {@link Inbox} in one transaction, and hands the committed outcomes to {@link Settlement}.
 * <p>
 * The channel's own ack and nack do nothing ({@code ack-strategy=ignore}, {@code failure-strategy=ignore}):
 * a failed delete inside the connector would end the channel, and it deletes one message per call.
 */
@ApplicationScoped
public class SqsInboxReceiver {

    private static final Logger LOG = Logger.getLogger(SqsInboxReceiver.class);
    private static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(20);
    /** A long poll lasts up to its wait time (20 s at most on SQS); the pod's grace period bounds the rest. */
    private static final Duration RECEIVE_GRACE = Duration.ofSeconds(21);
    private static final Duration QUEUE_CALLS_GRACE = Duration.ofSeconds(5);

    private final Inbox inbox;
    private final Settlement settlement;
    private final GroupFence fence;
    private final FailurePolicy failurePolicy;
    private final InboxMetrics metrics;
    private final TxinboxConfig config;
    private final DatabaseGate databaseGate;
    private final SqsConnectivity connectivity;
    private final ReceivedMessages received;
    private final SqsQueues queues;
    private final MessageTracing tracing;
    private final Map<String, BatchDispatcher<SqsDelivery>> dispatchers = new ConcurrentHashMap<>();
    private final Map<String, ConsumerProgress> progress = new ConcurrentHashMap<>();
    private volatile boolean stopping;

    public SqsInboxReceiver(Inbox inbox, Settlement settlement, GroupFence fence, FailurePolicy failurePolicy,
            InboxMetrics metrics, TxinboxConfig config, DatabaseGate databaseGate, SqsConnectivity connectivity,
            ReceivedMessages received, SqsQueues queues, MessageTracing tracing) {
        this.inbox = inbox;
        this.settlement = settlement;
        this.fence = fence;
        this.failurePolicy = failurePolicy;
        this.metrics = metrics;
        this.config = config;
        this.databaseGate = databaseGate;
        this.connectivity = connectivity;
        this.received = received;
        this.queues = queues;
        this.tracing = tracing;
    }

    /** Accepts one message of {@code consumer}'s channel; the stage completes when the channel may fetch on. */
    public CompletionStage<Void> accept(String consumer, Message<String> message) {
        TxinboxConfig.Consumer settings = settings(consumer);
        SqsIncomingMetadata metadata = message.getMetadata(SqsIncomingMetadata.class).orElse(null);
        if (metadata == null) {
            LOG.errorf("consumer %s received a message without SQS metadata; ignored", consumer);
            return CompletableFuture.completedFuture(null);
        }
        SqsDelivery delivery = SqsDelivery.of(settings.queue(), metadata.getMessage());
        metrics.stage(consumer, InboxMetrics.Stage.RECEIVE_BUFFER, received.taken(delivery.receiptHandle()), 1);
        if (stopping) {
            LOG.debugf("consumer %s: stopping; message %s handed back", consumer, delivery.messageId());
            settlement.releaseLater(consumer, delivery); // on the event loop: never wait for SQS here
            return CompletableFuture.completedFuture(null);
        }
        progress(consumer).taken(delivery);
        CompletionStage<Void> room = dispatcher(consumer, settings).submit(delivery);
        // While the database is down, fetch nothing more.
        return databaseGate.isOpen() ? room : room.thenCombine(databaseGate.whenOpen(), (a, b) -> null);
    }

    private void process(String consumer, TxinboxConfig.Consumer settings, List<SqsDelivery> batch) {
        ConsumerProgress consumerProgress = progress(consumer);
        try {
            databaseGate.awaitOpen();
            if (stopping) {
                // Not started before shutdown: hand them back at once, for another instance or the next start.
                settlement.release(consumer, batch, Duration.ZERO);
                return;
            }
            long started = System.nanoTime();
            for (SqsDelivery delivery : batch) {
                metrics.stage(consumer, InboxMetrics.Stage.WAITING_FOR_WORKER, started - delivery.takenAtNanos(), 1);
            }
            List<SqsDelivery> deliveries = new ArrayList<>(batch.size());
            List<InboxResult> results = new ArrayList<>(batch.size());
            List<SqsDelivery> processable = new ArrayList<>(batch.size());
            for (SqsDelivery delivery : batch) {
                if (delivery.age().compareTo(settings.visibilityTimeout()) > 0) {
                    // SQS has made it visible again and will deliver it anew: this copy's delete would be refused.
                    metrics.expired(consumer);
                    LOG.debugf("consumer %s: message %s expired while waiting (%s); left to its redelivery", consumer,
                            delivery.messageId(), delivery.age());
                    continue;
                }
                deliveries.add(delivery);
                results.add(fence.holdsBack(consumer, delivery)
                        ? InboxResult.heldBack(delivery.eventIdAttribute(), "held back behind a failed message of group "
                                + delivery.groupId())
                        : null);
                if (results.get(results.size() - 1) == null) {
                    processable.add(delivery);
                }
            }
            if (deliveries.isEmpty()) {
                return;
            }
            // The batch's span covers its transaction; each message's span lasts until SQS is told its outcome.
            MessageTracing.Batch traced = tracing.start(consumer, deliveries);
            List<MessageTracing.Traced> traces = traced.messages();
            List<MessageTracing.Traced> processableTraces = new ArrayList<>(processable.size());
            for (int i = 0; i < deliveries.size(); i++) {
                if (results.get(i) == null) {
                    processableTraces.add(traces.get(i));
                }
            }
            List<InboxResult> inboxResults;
            try {
                inboxResults = processable.isEmpty() ? List.of()
                        : inbox(consumer, settings, processable, processableTraces);
            } finally {
                traced.span().end();
            }
            for (int i = 0, next = 0; i < results.size(); i++) {
                if (results.get(i) == null) {
                    results.set(i, inboxResults.get(next++));
                }
            }
            List<Outcome> outcomes = settlement.settle(consumer, settings, deliveries, results, traces,
                    System.nanoTime());
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            for (int i = 0; i < deliveries.size(); i++) {
                Outcome outcome = outcomes.get(i);
                tracing.end(traces.get(i), results.get(i), outcome);
                if (outcome == Outcome.RETRIED && results.get(i).heldBack()) {
                    continue; // counted as held back, not as an outcome: it was not processed
                }
                if (outcome.settlesMessage() || outcome == Outcome.DEAD_LETTERED) {
                    consumerProgress.committed(deliveries.get(i));
                }
                metrics.record(consumer, outcome, took, results.get(i).attempts());
            }
        } finally {
            batch.forEach(consumerProgress::finished);
        }
    }

    /** The batch through the inbox, in one transaction; its work and commit timed for every message it carried. */
    private List<InboxResult> inbox(String consumer, TxinboxConfig.Consumer settings, List<SqsDelivery> deliveries,
            List<MessageTracing.Traced> traces) {
        List<IncomingMessage> messages = new ArrayList<>(deliveries.size());
        for (int i = 0; i < deliveries.size(); i++) {
            messages.add(deliveries.get(i).toIncoming(consumer, traces.get(i)));
        }
        int size = messages.size();
        metrics.batch(consumer, size);
        try {
            return inbox.receive(messages, settings.retry(), (work, commit) -> {
                metrics.stage(consumer, InboxMetrics.Stage.TRANSACTION, work.toNanos(), size);
                metrics.stage(consumer, InboxMetrics.Stage.COMMIT, commit.toNanos(), size);
            });
        } catch (RuntimeException e) {
            // Only a wiring error gets here (no handler for the consumer): never lose a message over it.
            return Collections.nCopies(size, InboxResult.retry(null, failurePolicy.describe(e), 0, FailurePolicy.OUTAGE_DELAY));
        }
    }

    private TxinboxConfig.Consumer settings(String consumer) {
        TxinboxConfig.Consumer settings = config.consumers().get(consumer);
        if (settings == null) {
            throw new IllegalStateException("no configuration txinbox.consumers." + consumer + ".*");
        }
        return settings;
    }

    private BatchDispatcher<SqsDelivery> dispatcher(String consumer, TxinboxConfig.Consumer settings) {
        return dispatchers.computeIfAbsent(consumer, name -> new BatchDispatcher<>(name, settings.parallelism(),
                settings.maxInFlight(), settings.batchSize(), SqsDelivery::orderingKey,
                batch -> process(name, settings, batch)));
    }

    /** What the consumer has taken and finished, for health, lag and metrics. */
    public ConsumerProgress progress(String consumer) {
        return progress.computeIfAbsent(consumer, name -> new ConsumerProgress());
    }

    /**
     * Graceful stop, on SIGTERM, before the database and SQS clients close: batches being processed
     * finish (or roll back at their transaction timeout), the messages not started go back to the queue.
     */
    void stop(@Observes ShutdownEvent event) {
        stopping = true;
        connectivity.stopReceiving();
        databaseGate.shutdown();
        LOG.infof("stopping: messages being processed finish, the others go back to their queue");
        dispatchers.values().forEach(dispatcher -> dispatcher.shutdown(SHUTDOWN_GRACE));
        settlement.flush(Duration.ofSeconds(5));
        try {
            if (!connectivity.awaitNoReceives(RECEIVE_GRACE)) {
                LOG.warnf("a receive was still in flight after %d s; its messages return after their visibility"
                        + " timeout", RECEIVE_GRACE.toSeconds());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int handedBack = settlement.handBack(received, Duration.ofSeconds(5));
        if (handedBack > 0) {
            LOG.infof("handed %d received but unstarted messages back to their queue", handedBack);
        }
        try {
            if (!queues.close(QUEUE_CALLS_GRACE)) {
                LOG.warnf("an SQS call (queue depth, redrive) was still unanswered after %d s; stopping anyway",
                        QUEUE_CALLS_GRACE.toSeconds());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
