package dev.txinbox.messaging;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

import dev.txinbox.inbox.FailurePolicy;
import dev.txinbox.inbox.Inbox;
import dev.txinbox.inbox.InboxResult;
import dev.txinbox.inbox.Outcome;
import dev.txinbox.ops.InboxMetrics;
import io.quarkus.runtime.ShutdownEvent;
import io.smallrye.reactive.messaging.aws.sqs.SqsIncomingMetadata;

/**
 * Between the SQS channel and the inbox. Takes each received message, orders it behind its group,
 * runs it through the {@link Inbox} and settles it with SQS only after the inbox committed:
 * <ul>
 * <li>final outcomes: delete (in batches, {@link DeleteBatcher});</li>
 * <li>{@code retried}: release after a backoff, and hold its group ({@link GroupFence});</li>
 * <li>{@code dead_lettered}: copy to the dead-letter queue, record DEAD, then delete; if the copy
 * fails the message is retried instead, so nothing leaves the queue without a copy.</li>
 * </ul>
 * The channel's own ack and nack do nothing ({@code ack-strategy=ignore}, {@code failure-strategy=ignore}):
 * a failed delete inside the connector would end the channel.
 */
@ApplicationScoped
public class SqsInboxReceiver {

    private static final Logger LOG = Logger.getLogger(SqsInboxReceiver.class);
    private static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(20);
    /** A long poll lasts up to its wait time (20 s at most on SQS); the pod's grace period bounds the rest. */
    private static final Duration RECEIVE_GRACE = Duration.ofSeconds(21);

    private final Inbox inbox;
    private final SqsQueues queues;
    private final GroupFence fence;
    private final FailurePolicy failurePolicy;
    private final InboxMetrics metrics;
    private final ConsumersConfig config;
    private final DatabaseGate databaseGate;
    private final DeleteBatcher deletes;
    private final SqsConnectivity connectivity;
    private final ReceivedMessages received;
    private final Map<String, GroupDispatcher> dispatchers = new ConcurrentHashMap<>();
    private final Map<String, ConsumerProgress> progress = new ConcurrentHashMap<>();
    private volatile boolean stopping;

    public SqsInboxReceiver(Inbox inbox, SqsQueues queues, GroupFence fence, FailurePolicy failurePolicy,
            InboxMetrics metrics, ConsumersConfig config, DatabaseGate databaseGate, DeleteBatcher deletes,
            SqsConnectivity connectivity, ReceivedMessages received) {
        this.inbox = inbox;
        this.connectivity = connectivity;
        this.received = received;
        this.deletes = deletes;
        this.databaseGate = databaseGate;
        this.queues = queues;
        this.fence = fence;
        this.failurePolicy = failurePolicy;
        this.metrics = metrics;
        this.config = config;
    }

    /** Accepts one message of {@code consumer}'s channel; the stage completes when the channel may fetch on. */
    public CompletionStage<Void> accept(String consumer, Message<String> message) {
        ConsumersConfig.Consumer settings = settings(consumer);
        SqsIncomingMetadata metadata = message.getMetadata(SqsIncomingMetadata.class).orElse(null);
        if (metadata == null) {
            LOG.errorf("consumer %s received a message without SQS metadata; ignored", consumer);
            return CompletableFuture.completedFuture(null);
        }
        SqsDelivery delivery = SqsDelivery.of(settings.queue(), metadata.getMessage());
        received.taken(delivery.receiptHandle());
        if (stopping) {
            LOG.debugf("consumer %s: stopping; message %s handed back", consumer, delivery.messageId());
            queues.releaseLater(consumer, delivery); // on the event loop: never wait for SQS here
            return CompletableFuture.completedFuture(null);
        }
        ConsumerProgress consumerProgress = progress(consumer);
        consumerProgress.taken(delivery);
        CompletionStage<Void> room = dispatcher(consumer, settings).submit(delivery.orderingKey(), () -> {
            try {
                process(consumer, settings, delivery);
            } finally {
                consumerProgress.finished(delivery);
            }
        });
        // While the database is down, fetch nothing more.
        return databaseGate.isOpen() ? room : room.thenCombine(databaseGate.whenOpen(), (a, b) -> null);
    }

    private void process(String consumer, ConsumersConfig.Consumer settings, SqsDelivery delivery) {
        databaseGate.awaitOpen();
        if (stopping) {
            // Not started before shutdown: hand it back at once, for another instance or the next start.
            queues.release(consumer, delivery, Duration.ZERO);
            return;
        }
        if (delivery.age().compareTo(settings.visibilityTimeout()) > 0) {
            // Waited longer than its visibility timeout (behind a slow group, or a database outage): SQS
            // has made it visible again and will deliver it anew. Processing this copy would only end
            // in a refused delete; leave it to the fresh one.
            metrics.expired(consumer);
            LOG.debugf("consumer %s: message %s expired while waiting (%s); left to its redelivery", consumer,
                    delivery.messageId(), delivery.age());
            return;
        }
        long started = System.nanoTime();
        if (fence.holdsBack(consumer, delivery)) {
            queues.release(consumer, delivery, Duration.ZERO);
            metrics.heldBack(consumer);
            LOG.debugf("consumer %s: message %s released behind a failed message of group %s", consumer,
                    delivery.messageId(), delivery.groupId());
            return;
        }
        InboxResult result;
        try {
            result = inbox.receive(delivery.toIncoming(consumer), settings.retrySettings());
        } catch (RuntimeException e) {
            // Only a wiring error gets here (no handler for the consumer): never lose the message over it.
            result = new InboxResult(Outcome.RETRIED, null, failurePolicy.describe(e), 0,
                    FailurePolicy.OUTAGE_DELAY, false);
        }
        Outcome outcome = settle(consumer, settings, delivery, result);
        if (outcome.settlesMessage() || outcome == Outcome.DEAD_LETTERED) {
            progress(consumer).committed(delivery);
        }
        metrics.record(consumer, outcome, Duration.ofNanos(System.nanoTime() - started), result.attempts());
    }

    private Outcome settle(String consumer, ConsumersConfig.Consumer settings, SqsDelivery delivery, InboxResult result) {
        switch (result.outcome()) {
            case RETRIED:
                return retry(consumer, settings, delivery, result);
            case DEAD_LETTERED:
                return deadLetter(consumer, settings, delivery, result);
            case REJECTED:
                LOG.infof("consumer %s: event %s rejected: %s", consumer, result.eventId(), result.detail());
                deletes.delete(consumer, delivery);
                return Outcome.REJECTED;
            default:
                deletes.delete(consumer, delivery);
                return result.outcome();
        }
    }

    /** Copy first, then record, then delete: nothing leaves the queue without a copy in the DLQ. */
    private Outcome deadLetter(String consumer, ConsumersConfig.Consumer settings, SqsDelivery delivery,
            InboxResult result) {
        String reason = result.attempts() > 0 ? "gave up after " + result.attempts() + " attempts" : "invalid message";
        try {
            queues.deadLetter(settings.dlq(), consumer, delivery, reason, result.detail(), Math.max(result.attempts(), 1));
            inbox.recordDeadLetter(delivery.toIncoming(consumer), result.eventId(), reason + ": " + result.detail());
        } catch (RuntimeException e) {
            String error = "dead-lettering failed (" + failurePolicy.describe(e) + ") for: " + result.detail();
            return retry(consumer, settings, delivery, new InboxResult(Outcome.RETRIED, result.eventId(), error,
                    result.attempts(), FailurePolicy.OUTAGE_DELAY, failurePolicy.isOutage(e)));
        }
        LOG.warnf("consumer %s: message %s (event %s) dead-lettered to %s, %s: %s", consumer, delivery.messageId(),
                result.eventId(), settings.dlq(), reason, result.detail());
        deletes.delete(consumer, delivery);
        return Outcome.DEAD_LETTERED;
    }

    private Outcome retry(String consumer, ConsumersConfig.Consumer settings, SqsDelivery delivery, InboxResult result) {
        Duration delay = result.retryDelay() != null ? result.retryDelay() : FailurePolicy.OUTAGE_DELAY;
        if (result.outage()) {
            databaseGate.close(result.detail());
        } else {
            LOG.warnf("consumer %s: message %s (event %s) %s, retrying in %d s: %s", consumer, delivery.messageId(),
                    result.eventId(), result.attempts() > 0 ? "failed on attempt " + result.attempts() : "was not settled",
                    delay.toSeconds(), result.detail());
        }
        fence.hold(consumer, delivery, delay, settings.visibilityTimeout());
        queues.release(consumer, delivery, delay);
        return Outcome.RETRIED;
    }

    private ConsumersConfig.Consumer settings(String consumer) {
        ConsumersConfig.Consumer settings = config.consumers().get(consumer);
        if (settings == null) {
            throw new IllegalStateException("no configuration txinbox.consumers." + consumer + ".*");
        }
        return settings;
    }

    private GroupDispatcher dispatcher(String consumer, ConsumersConfig.Consumer settings) {
        return dispatchers.computeIfAbsent(consumer,
                name -> new GroupDispatcher(name, settings.parallelism(), settings.maxInFlight()));
    }

    /** What the consumer has taken and finished, for health, lag and metrics. */
    public ConsumerProgress progress(String consumer) {
        return progress.computeIfAbsent(consumer, name -> new ConsumerProgress());
    }

    /**
     * Graceful stop, on SIGTERM, before the database and SQS clients close: messages being processed
     * finish (or roll back at their transaction timeout), the ones not started go back to the queue.
     */
    void stop(@Observes ShutdownEvent event) {
        stopping = true;
        connectivity.stopReceiving();
        databaseGate.shutdown();
        LOG.infof("stopping: messages being processed finish, the others go back to their queue");
        dispatchers.values().forEach(dispatcher -> dispatcher.shutdown(SHUTDOWN_GRACE));
        deletes.flush(Duration.ofSeconds(5));
        try {
            if (!connectivity.awaitNoReceives(RECEIVE_GRACE)) {
                LOG.warnf("a receive was still in flight after %d s; its messages return after their visibility"
                        + " timeout", RECEIVE_GRACE.toSeconds());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int handedBack = queues.handBack(received, Duration.ofSeconds(5));
        if (handedBack > 0) {
            LOG.infof("handed %d received but unstarted messages back to their queue", handedBack);
        }
    }
}
