package dev.txinbox.messaging;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

import dev.txinbox.inbox.FailurePolicy;
import dev.txinbox.inbox.Inbox;
import dev.txinbox.inbox.InboxResult;
import dev.txinbox.inbox.Outcome;
import dev.txinbox.ops.InboxMetrics;
import io.smallrye.reactive.messaging.aws.sqs.SqsIncomingMetadata;

/**
 * Between the SQS channel and the inbox. Takes each received message, orders it behind its group,
 * runs it through the {@link Inbox} and settles it with SQS only after the inbox committed:
 * <ul>
 * <li>final outcomes: delete;</li>
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

    private final Inbox inbox;
    private final SqsQueues queues;
    private final GroupFence fence;
    private final FailurePolicy failurePolicy;
    private final InboxMetrics metrics;
    private final ConsumersConfig config;
    private final Map<String, GroupDispatcher> dispatchers = new ConcurrentHashMap<>();

    public SqsInboxReceiver(Inbox inbox, SqsQueues queues, GroupFence fence, FailurePolicy failurePolicy,
            InboxMetrics metrics, ConsumersConfig config) {
        this.inbox = inbox;
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
        return dispatcher(consumer, settings).submit(delivery.orderingKey(), () -> process(consumer, settings, delivery));
    }

    private void process(String consumer, ConsumersConfig.Consumer settings, SqsDelivery delivery) {
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
            result = inbox.receive(delivery.toIncoming(consumer));
        } catch (RuntimeException e) {
            result = new InboxResult(Outcome.RETRIED, null, failurePolicy.describe(e), e);
        }
        Outcome outcome = settle(consumer, settings, delivery, result);
        metrics.record(consumer, outcome, Duration.ofNanos(System.nanoTime() - started));
    }

    private Outcome settle(String consumer, ConsumersConfig.Consumer settings, SqsDelivery delivery, InboxResult result) {
        switch (result.outcome()) {
            case RETRIED:
                return retry(consumer, settings, delivery, result.detail());
            case DEAD_LETTERED:
                try {
                    queues.deadLetter(settings.dlq(), consumer, delivery, result.detail());
                    inbox.recordDeadLetter(delivery.toIncoming(consumer), result.eventId(), result.detail());
                } catch (RuntimeException e) {
                    return retry(consumer, settings, delivery,
                            "dead-lettering failed (" + failurePolicy.describe(e) + ") for: " + result.detail());
                }
                LOG.warnf("consumer %s: message %s (event %s) dead-lettered to %s: %s", consumer, delivery.messageId(),
                        result.eventId(), settings.dlq(), result.detail());
                queues.delete(consumer, delivery);
                return Outcome.DEAD_LETTERED;
            case REJECTED:
                LOG.infof("consumer %s: event %s rejected: %s", consumer, result.eventId(), result.detail());
                queues.delete(consumer, delivery);
                return Outcome.REJECTED;
            default:
                queues.delete(consumer, delivery);
                return result.outcome();
        }
    }

    private Outcome retry(String consumer, ConsumersConfig.Consumer settings, SqsDelivery delivery, String error) {
        Duration delay = failurePolicy.retryDelay(delivery.receiveCount());
        LOG.warnf("consumer %s: message %s failed on attempt %d, retrying in %d s: %s", consumer, delivery.messageId(),
                delivery.receiveCount(), delay.toSeconds(), error);
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

    /** Messages accepted but not yet finished, per consumer (for health and metrics). */
    public int inFlight(String consumer) {
        GroupDispatcher dispatcher = dispatchers.get(consumer);
        return dispatcher == null ? 0 : dispatcher.inFlight();
    }

    @PreDestroy
    void stop() {
        dispatchers.values().forEach(dispatcher -> dispatcher.shutdown(SHUTDOWN_GRACE));
    }
}
