package dev.txinbox.messaging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.BooleanSupplier;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.inbox.FailurePolicy;
import dev.txinbox.inbox.Inbox;
import dev.txinbox.inbox.InboxResult;
import dev.txinbox.inbox.IncomingMessage;
import dev.txinbox.inbox.Outcome;
import dev.txinbox.messaging.sqs.ReceivedMessages;
import dev.txinbox.messaging.sqs.SqsDelivery;

/**
 * What a worker does with one batch, in this order: waits while the database is down; drops what it must not
 * process (expired copies, messages behind a failed one of their group, {@link GroupFence}); runs the rest
 * through the {@link Inbox} in one transaction; hands the committed outcomes to {@link Settlement}; counts them.
 */
@ApplicationScoped
public class BatchProcessor {

    private static final Logger LOG = Logger.getLogger(BatchProcessor.class);

    private final Inbox inbox;
    private final Settlement settlement;
    private final GroupFence fence;
    private final FailurePolicy failurePolicy;
    private final InboxMetrics metrics;
    private final DatabaseGate databaseGate;
    private final ReceivedMessages received;
    private final MessageTracing tracing;

    public BatchProcessor(Inbox inbox, Settlement settlement, GroupFence fence, FailurePolicy failurePolicy,
            InboxMetrics metrics, DatabaseGate databaseGate, ReceivedMessages received, MessageTracing tracing) {
        this.inbox = inbox;
        this.settlement = settlement;
        this.fence = fence;
        this.failurePolicy = failurePolicy;
        this.metrics = metrics;
        this.databaseGate = databaseGate;
        this.received = received;
        this.tracing = tracing;
    }

    /**
     * Processes one batch of {@code consumer}'s messages. Once {@code stopping}, a batch not begun is left
     * as it is: its messages are among those the stop hands back to their queue.
     */
    void process(String consumer, TxinboxConfig.Consumer settings, ConsumerProgress progress, List<SqsDelivery> batch,
            BooleanSupplier stopping) {
        try {
            databaseGate.awaitOpen();
            if (stopping.getAsBoolean()) {
                return;
            }
            batch.forEach(received::started);
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
                    progress.committed(deliveries.get(i));
                }
                metrics.record(consumer, outcome, took, results.get(i).attempts());
            }
        } finally {
            batch.forEach(progress::finished);
        }
    }

    /** The batch through the inbox, in one transaction; its work and commit timed for every message it carried. */
    private List<InboxResult> inbox(String consumer, TxinboxConfig.Consumer settings, List<SqsDelivery> deliveries,
            List<MessageTracing.Traced> traces) {
        List<IncomingMessage> messages = new ArrayList<>(deliveries.size());
        for (int i = 0; i < deliveries.size(); i++) {
            MessageTracing.Traced traced = traces.get(i);
            messages.add(deliveries.get(i).toIncoming(consumer, traced.traceparent(), traced.context()));
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
}
