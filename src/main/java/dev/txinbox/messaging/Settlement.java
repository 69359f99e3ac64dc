package dev.txinbox.messaging;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.inbox.FailurePolicy;
import dev.txinbox.inbox.Inbox;
import dev.txinbox.inbox.InboxResult;
import dev.txinbox.inbox.Outcome;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/**
 * What happens to an SQS message once the inbox has committed its outcome, in one place:
 * <ul>
 * <li>a final outcome: delete, with DeleteMessageBatch (ten per call) for the whole batch;</li>
 * <li>{@code retried}: hold its group ({@link GroupFence}) and release it after its backoff; a message
 * held back behind a failed one of its group is released at once (ChangeMessageVisibilityBatch);</li>
 * <li>{@code dead_lettered}: copy to the dead-letter queue, record DEAD, then delete; if the copy fails
 * the message is retried instead, so nothing leaves the queue without a copy.</li>
 * </ul>
 * Deletes and releases are sent without waiting for the answer (a worker moves on to its next batch),
 * at most {@link #MAX_CALLS_IN_FLIGHT} at a time: if SQS falls behind, the workers slow down instead of
 * piling up messages whose visibility timeout runs. A refused delete or release is logged and counted,
 * never thrown: the message simply comes back, and the inbox knows it then.
 * <p>
 * Entry ids in a batch call are the entries' positions, so they are unique even when a batch holds two
 * copies of one message (a redelivery that arrived while the first copy was processed): a repeated id
 * makes SQS refuse the whole call.
 */
@ApplicationScoped
public class Settlement {

    private static final Logger LOG = Logger.getLogger(Settlement.class);
    private static final int MAX_BATCH = 10;
    private static final int MAX_CALLS_IN_FLIGHT = 16;
    private static final int MAX_ATTRIBUTE_LENGTH = 4000;

    private final SqsAsyncClient client;
    private final SqsQueues queues;
    private final Inbox inbox;
    private final GroupFence fence;
    private final DatabaseGate databaseGate;
    private final FailurePolicy failurePolicy;
    private final InboxMetrics metrics;
    private final Semaphore calls = new Semaphore(MAX_CALLS_IN_FLIGHT);

    public Settlement(SqsAsyncClient client, SqsQueues queues, Inbox inbox, GroupFence fence, DatabaseGate databaseGate,
            FailurePolicy failurePolicy, InboxMetrics metrics) {
        this.client = client;
        this.queues = queues;
        this.inbox = inbox;
        this.fence = fence;
        this.databaseGate = databaseGate;
        this.failurePolicy = failurePolicy;
        this.metrics = metrics;
    }

    /**
     * Settles a committed batch with SQS; returns each message's final outcome, in order. {@code committedAtNanos}
     * starts the settlement stage, which ends when SQS answers. {@code traces}: each message's trace, for its log
     * lines (consumer, event id, message id and trace id in the MDC) and its dead-letter record.
     */
    List<Outcome> settle(String consumer, TxinboxConfig.Consumer settings, List<SqsDelivery> deliveries,
            List<InboxResult> results, List<MessageTracing.Traced> traces, long committedAtNanos) {
        List<Outcome> outcomes = new ArrayList<>(deliveries.size());
        List<SqsDelivery> deletes = new ArrayList<>();
        List<SqsDelivery> heldBack = new ArrayList<>();
        Map<Duration, List<SqsDelivery>> retries = new LinkedHashMap<>();
        try {
            for (int i = 0; i < deliveries.size(); i++) {
                settleOne(consumer, settings, deliveries.get(i), results.get(i), traces.get(i), outcomes, deletes,
                        heldBack, retries);
            }
        } finally {
            MessageTracing.clearMdc();
        }
        delete(consumer, deletes, committedAtNanos);
        release(consumer, heldBack, Duration.ZERO, committedAtNanos);
        retries.forEach((delay, batch) -> release(consumer, batch, delay, committedAtNanos));
        return outcomes;
    }

    private void settleOne(String consumer, TxinboxConfig.Consumer settings, SqsDelivery delivery, InboxResult result,
            MessageTracing.Traced traced, List<Outcome> outcomes, List<SqsDelivery> deletes, List<SqsDelivery> heldBack,
            Map<Duration, List<SqsDelivery>> retries) {
        if (logsAbout(result.outcome())) {
            MessageTracing.putMdc(consumer, delivery, result.eventId() != null ? result.eventId()
                    : delivery.eventIdAttribute(), traced);
        }
        if (result.outcome() == Outcome.DEAD_LETTERED) {
            result = deadLetter(consumer, settings, delivery, result, traced);
        }
        switch (result.outcome()) {
            case RETRIED -> {
                if (result.heldBack()) {
                    heldBack.add(delivery);
                    metrics.heldBack(consumer);
                    LOG.debugf("consumer %s: message %s %s", consumer, delivery.messageId(), result.detail());
                } else {
                    Duration delay = retryDelay(consumer, settings, delivery, result);
                    retries.computeIfAbsent(delay, d -> new ArrayList<>()).add(delivery);
                }
            }
            case REJECTED -> {
                LOG.infof("consumer %s: event %s rejected: %s", consumer, result.eventId(), result.detail());
                deletes.add(delivery);
            }
            default -> deletes.add(delivery);
        }
        outcomes.add(result.outcome());
    }

    /** Whether settling this outcome may log a line about the message (the common outcomes log none at INFO). */
    private static boolean logsAbout(Outcome outcome) {
        return switch (outcome) {
            case PROCESSED, DUPLICATE, STALE, PARKED -> LOG.isDebugEnabled();
            default -> true;
        };
    }

    /** Holds the group of a message that will be retried and says when it should come back. */
    private Duration retryDelay(String consumer, TxinboxConfig.Consumer settings, SqsDelivery delivery,
            InboxResult result) {
        Duration delay = result.retryDelay() != null ? result.retryDelay() : FailurePolicy.OUTAGE_DELAY;
        if (result.outage()) {
            databaseGate.close(result.detail());
        } else {
            LOG.warnf("consumer %s: message %s (event %s) %s, retrying in %d s: %s", consumer, delivery.messageId(),
                    result.eventId(), result.attempts() > 0 ? "failed on attempt " + result.attempts() : "was not settled",
                    delay.toSeconds(), result.detail());
        }
        fence.hold(consumer, delivery, delay, settings.visibilityTimeout());
        return delay;
    }

    /**
     * Copy first, then record, then delete: nothing leaves the queue without a copy in the DLQ. Returns
     * the result to settle with: dead-lettered, or a retry when the copy or the record failed.
     */
    private InboxResult deadLetter(String consumer, TxinboxConfig.Consumer settings, SqsDelivery delivery,
            InboxResult result, MessageTracing.Traced traced) {
        String reason = result.attempts() > 0 ? "gave up after " + result.attempts() + " attempts" : "invalid message";
        try {
            copyToDeadLetterQueue(settings.dlq(), consumer, delivery, reason, result.detail(),
                    Math.max(result.attempts(), 1));
            inbox.recordDeadLetter(delivery.toIncoming(consumer, traced), result.eventId(),
                    reason + ": " + result.detail());
        } catch (RuntimeException e) {
            String error = "dead-lettering failed (" + failurePolicy.describe(e) + ") for: " + result.detail();
            return failurePolicy.isOutage(e) ? InboxResult.outage(result.eventId(), error, FailurePolicy.OUTAGE_DELAY)
                    : InboxResult.retry(result.eventId(), error, result.attempts(), FailurePolicy.OUTAGE_DELAY);
        }
        LOG.warnf("consumer %s: message %s (event %s) dead-lettered to %s, %s: %s", consumer, delivery.messageId(),
                result.eventId(), settings.dlq(), reason, result.detail());
        return result;
    }

    /** Same body, same group, the reason in attributes. Throws if SQS did not take it, so the original stays. */
    private void copyToDeadLetterQueue(String deadLetterQueue, String consumer, SqsDelivery delivery, String reason,
            String error, int attempts) {
        Map<String, MessageAttributeValue> attributes = new HashMap<>();
        put(attributes, "txinbox-reason", reason);
        put(attributes, "txinbox-error", error);
        put(attributes, "txinbox-attempts", Integer.toString(attempts));
        put(attributes, "txinbox-consumer", consumer);
        put(attributes, "txinbox-source-queue", delivery.queue());
        put(attributes, "txinbox-source-message-id", delivery.messageId());
        put(attributes, "txinbox-receive-count", Integer.toString(delivery.receiveCount()));
        put(attributes, "txinbox-dead-lettered-at", Instant.now().toString());
        if (delivery.firstReceivedAt() != null) {
            put(attributes, "txinbox-first-received-at", delivery.firstReceivedAt().toString());
        }
        if (delivery.eventIdAttribute() != null) {
            put(attributes, SqsDelivery.EVENT_ID_ATTRIBUTE, delivery.eventIdAttribute());
        }
        String body = delivery.message().body();
        queues.call(() -> client.sendMessage(r -> {
            r.queueUrl(queues.url(deadLetterQueue)).messageBody(body == null || body.isEmpty() ? " " : body)
                    .messageAttributes(attributes);
            if (deadLetterQueue.endsWith(".fifo")) {
                // The source message id as dedup id: a second copy after a crash in between is dropped by SQS.
                r.messageGroupId(delivery.groupId() != null ? delivery.groupId() : "dead-letters")
                        .messageDeduplicationId(delivery.messageId());
            }
        }));
    }

    /** Deletes messages whose outcome committed: DeleteMessageBatch, ten per call, not waiting for the answer. */
    private void delete(String consumer, List<SqsDelivery> deliveries, long since) {
        perCall(consumer, deliveries, (url, chunk) -> {
            List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>(chunk.size());
            for (int i = 0; i < chunk.size(); i++) {
                entries.add(DeleteMessageBatchRequestEntry.builder().id(Integer.toString(i))
                        .receiptHandle(chunk.get(i).receiptHandle()).build());
            }
            send(consumer, chunk, "delete", since, () -> client.deleteMessageBatch(r -> r.queueUrl(url).entries(entries))
                    .thenApply(response -> response.failed()));
        });
    }

    /** Makes messages visible again after {@code delay}: ChangeMessageVisibilityBatch, not waiting for the answer. */
    void release(String consumer, List<SqsDelivery> deliveries, Duration delay) {
        release(consumer, deliveries, delay, 0);
    }

    private void release(String consumer, List<SqsDelivery> deliveries, Duration delay, long since) {
        perCall(consumer, deliveries, (url, chunk) -> {
            List<ChangeMessageVisibilityBatchRequestEntry> entries = new ArrayList<>(chunk.size());
            for (int i = 0; i < chunk.size(); i++) {
                entries.add(ChangeMessageVisibilityBatchRequestEntry.builder().id(Integer.toString(i))
                        .receiptHandle(chunk.get(i).receiptHandle()).visibilityTimeout((int) delay.toSeconds()).build());
            }
            send(consumer, chunk, "release", since,
                    () -> client.changeMessageVisibilityBatch(r -> r.queueUrl(url).entries(entries))
                            .thenApply(response -> response.failed()));
        });
    }

    /** Makes a message visible again now, without waiting for anything (for the event loop, which must not block). */
    void releaseLater(String consumer, SqsDelivery delivery) {
        queues.knownUrl(delivery.queue()).ifPresent(url -> client.changeMessageVisibility(r -> r.queueUrl(url)
                .receiptHandle(delivery.receiptHandle()).visibilityTimeout(0)).whenComplete((ignored, failure) -> {
                    if (failure != null) {
                        metrics.ackFailed(consumer);
                        LOG.debugf("could not hand message %s back: %s", delivery.messageId(), SqsQueues.rootMessage(failure));
                    }
                }));
    }

    /** Hands the messages received but never taken back to their queue ({@link ReceivedMessages}); how many went. */
    int handBack(ReceivedMessages received, Duration timeout) {
        if (received.waiting() == 0) {
            return 0;
        }
        try {
            return received.handBack(client).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.debugf("handing messages back did not finish: %s", e.getMessage());
            return 0;
        }
    }

    /** Waits, up to {@code timeout}, for the deletes and releases sent so far: at shutdown, before the client closes. */
    void flush(Duration timeout) {
        try {
            if (calls.tryAcquire(MAX_CALLS_IN_FLIGHT, Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS)) {
                calls.release(MAX_CALLS_IN_FLIGHT);
            } else {
                LOG.warnf("SQS calls still unanswered after %s; their messages come back and are recognised", timeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Splits deliveries by queue into calls of at most ten. */
    private void perCall(String consumer, List<SqsDelivery> deliveries, BiConsumer<String, List<SqsDelivery>> call) {
        if (deliveries.isEmpty()) {
            return;
        }
        Map<String, List<SqsDelivery>> byQueue = new LinkedHashMap<>();
        deliveries.forEach(d -> byQueue.computeIfAbsent(d.queue(), q -> new ArrayList<>()).add(d));
        byQueue.forEach((queue, list) -> {
            String url;
            try {
                url = queues.url(queue);
            } catch (RuntimeException e) {
                list.forEach(d -> refused(consumer, d, "settle", SqsQueues.rootMessage(e)));
                return;
            }
            for (int from = 0; from < list.size(); from += MAX_BATCH) {
                call.accept(url, list.subList(from, Math.min(list.size(), from + MAX_BATCH)));
            }
        });
    }

    /** One call, not waiting for its answer; {@code since} (nanoTime, 0: not timed) starts the settlement stage. */
    private void send(String consumer, List<SqsDelivery> chunk, String what, long since,
            java.util.function.Supplier<CompletableFuture<List<BatchResultErrorEntry>>> call) {
        try {
            calls.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            chunk.forEach(d -> refused(consumer, d, what, "interrupted"));
            return;
        }
        CompletableFuture<List<BatchResultErrorEntry>> sent;
        try {
            sent = call.get();
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        sent.whenComplete((failed, failure) -> {
            calls.release();
            if (since != 0) {
                metrics.stage(consumer, InboxMetrics.Stage.SETTLEMENT, System.nanoTime() - since, chunk.size());
            }
            if (failure != null) {
                chunk.forEach(d -> refused(consumer, d, what, SqsQueues.rootMessage(failure)));
                return;
            }
            for (BatchResultErrorEntry error : failed) {
                refused(consumer, chunk.get(Integer.parseInt(error.id())), what, error.code() + ": " + error.message());
            }
        });
    }

    private void refused(String consumer, SqsDelivery delivery, String what, String why) {
        metrics.ackFailed(consumer);
        LOG.warnf("could not %s message %s in %s (%s); it comes back after its visibility timeout and is recognised"
                + " then", what, delivery.messageId(), delivery.queue(), why);
    }

    private static void put(Map<String, MessageAttributeValue> attributes, String name, String value) {
        if (value == null || value.isEmpty()) {
            return;
        }
        String bounded = value.length() > MAX_ATTRIBUTE_LENGTH ? value.substring(0, MAX_ATTRIBUTE_LENGTH) + "…" : value;
        attributes.put(name, MessageAttributeValue.builder().dataType("String").stringValue(bounded).build());
    }
}
