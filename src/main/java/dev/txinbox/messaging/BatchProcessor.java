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
import io.opentelemetry.api.trace.Span;

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
    private final DeliverySettlement deliverySettlement;
    private final MessageTracing tracing;

    public BatchProcessor(Inbox inbox, Settlement settlement, GroupFence fence, FailurePolicy failurePolicy,
            InboxMetrics metrics, DatabaseGate databaseGate, DeliverySettlement deliverySettlement,
            MessageTracing tracing) {
        this.inbox = inbox;
        this.settlement = settlement;
        this.fence = fence;
        this.failurePolicy = failurePolicy;
        this.metrics = metrics;
        this.databaseGate = databaseGate;
        this.deliverySettlement = deliverySettlement;
        this.tracing = tracing;
    }

    /**
     * Processes one batch of {@code consumer}'s messages. Once {@code stopping}, a batch not begun is left
     * as it is: its messages are among those the stop hands back to their queue.
     */
    public void process(String consumer, TxinboxConfig.Consumer settings, ConsumerProgress progress, List<Delivery> batch,
            BooleanSupplier stopping) {
        try {
            databaseGate.awaitOpen();
            if (stopping.getAsBoolean()) {
                return;
            }
            deliverySettlement.begin(batch);
            long started = System.nanoTime();
            List<BatchItem> items = new ArrayList<>(batch.size());
            int processable = 0;
            for (Delivery delivery : batch) {
                metrics.stage(consumer, InboxMetrics.Stage.WAITING_FOR_WORKER, started - delivery.takenAtNanos(), 1);
                if (delivery.age().compareTo(settings.visibilityTimeout()) > 0) {
                    // The broker has made it visible again and will deliver it anew: this copy's delete would be refused.
                    metrics.expired(consumer);
                    LOG.debugf("consumer %s: message %s expired while waiting (%s); left to its redelivery", consumer,
                            delivery.messageId(), delivery.age());
                    continue;
                }
                BatchItem item = new BatchItem(delivery);
                if (fence.holdsBack(consumer, delivery)) {
                    item.result = InboxResult.heldBack(delivery.eventIdAttribute(),
                            "held back behind a failed message of group " + delivery.groupId());
                } else {
                    processable++;
                }
                items.add(item);
            }
            if (items.isEmpty()) {
                return;
            }
            // The batch's span covers its transaction; each message's span lasts until the broker is told its outcome.
            Span batchSpan = tracing.start(consumer, items);
            try {
                if (processable > 0) {
                    inbox(consumer, settings, items, processable);
                }
            } finally {
                batchSpan.end();
            }
            settlement.settle(consumer, settings, items, System.nanoTime());
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            for (BatchItem item : items) {
                Outcome outcome = item.outcome;
                tracing.end(item.traced, item.result, outcome);
                if (outcome == Outcome.RETRIED && item.result.heldBack()) {
                    continue; // counted as held back, not as an outcome: it was not processed
                }
                if (outcome.settlesMessage() || outcome == Outcome.DEAD_LETTERED) {
                    progress.committed(item.delivery);
                }
                metrics.record(consumer, outcome, took, item.result.attempts());
            }
        } finally {
            for (Delivery delivery : batch) {
                progress.finished(delivery);
            }
        }
    }

    /**
     * The batch's {@code processable} items that have no result yet through the inbox, in one transaction, each given
     * its result; the work and commit timed for every message it carried.
     */
    private void inbox(String consumer, TxinboxConfig.Consumer settings, List<BatchItem> items, int processable) {
        List<IncomingMessage> messages = new ArrayList<>(processable);
        for (BatchItem item : items) {
            if (item.result == null) {
                messages.add(item.delivery.toIncoming(consumer, item.traced.traceparent(), item.traced.context()));
            }
        }
        int size = messages.size();
        metrics.batch(consumer, size);
        List<InboxResult> results;
        try {
            results = inbox.receive(messages, settings.retry(), (work, commit) -> {
                metrics.stage(consumer, InboxMetrics.Stage.TRANSACTION, work.toNanos(), size);
                metrics.stage(consumer, InboxMetrics.Stage.COMMIT, commit.toNanos(), size);
            });
        } catch (RuntimeException e) {
            // Only a wiring error gets here (no handler for the consumer): never lose a message over it.
            results = Collections.nCopies(size, InboxResult.retry(null, failurePolicy.describe(e), 0,
                    FailurePolicy.OUTAGE_DELAY));
        }
        int next = 0;
        for (BatchItem item : items) {
            if (item.result == null) {
                item.result = results.get(next++);
            }
        }
    }
}
