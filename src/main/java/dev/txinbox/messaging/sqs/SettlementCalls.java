package dev.txinbox.messaging.sqs;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import dev.txinbox.messaging.CallsInFlight;
import dev.txinbox.messaging.Delivery;
import dev.txinbox.messaging.DeliverySettlement;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/**
 * The SQS calls that settle received messages: delete and release in batches, copy to a dead-letter queue, hand
 * back what was received and not processed. The pipeline's port ({@link DeliverySettlement}), for the deliveries
 * this adapter made ({@link SqsDelivery}); what each outcome leads to is the pipeline's ({@code Settlement}).
 * <p>
 * Deletes and releases are sent without waiting for the answer (a worker moves on to its next batch), at most
 * {@link #MAX_CALLS_IN_FLIGHT} at a time: if SQS falls behind, the workers slow down instead of piling up
 * messages whose visibility timeout runs. A delete SQS refuses for a reason that passes is tried again, its messages
 * kept invisible meanwhile ({@link Deletion}). Entry ids in a batch call are the entries' positions, so they are
 * unique even when a batch holds two copies of one message (a redelivery that arrived while the first copy was
 * processed): a repeated id makes SQS refuse the whole call.
 */
@ApplicationScoped
public class SettlementCalls implements DeliverySettlement {

    private static final int MAX_BATCH = 10;
    private static final int MAX_CALLS_IN_FLIGHT = 16;
    private static final int MAX_ATTRIBUTE_LENGTH = 4000;

    private final SqsAsyncClient client;
    private final SqsQueues queues;
    private final ReceivedMessages received;
    private final CallsInFlight calls = new CallsInFlight(MAX_CALLS_IN_FLIGHT);
    private final ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "txinbox-sqs-delete-retry");
        thread.setDaemon(true);
        return thread;
    });
    private volatile boolean stopped;

    public SettlementCalls(SqsAsyncClient client, SqsQueues queues, ReceivedMessages received) {
        this.client = client;
        this.queues = queues;
        this.received = received;
    }

    @Override
    public void begin(List<? extends Delivery> batch) {
        for (int i = 0; i < batch.size(); i++) {
            received.started((SqsDelivery) batch.get(i));
        }
    }

    /**
     * Deletes messages: DeleteMessageBatch, ten per call, not waiting for the answer. A delete SQS refuses for a
     * reason that passes is tried again ({@link Deletion}); each call is answered to {@code reply} once settled.
     */
    @Override
    public void delete(List<Delivery> deliveries, Duration visibilityTimeout, Reply reply) {
        perCall(deliveries, reply, (url, chunk) -> {
            if (room(chunk, reply)) {
                new Deletion(client, url, chunk, visibilityTimeout, reply, retries, () -> stopped, calls).attempt(chunk);
            }
        });
    }

    /** Makes messages visible again after {@code delay}: ChangeMessageVisibilityBatch, not waiting for the answer. */
    @Override
    public void release(List<Delivery> deliveries, Duration delay, Reply reply) {
        perCall(deliveries, reply, (url, chunk) -> {
            List<ChangeMessageVisibilityBatchRequestEntry> entries = new ArrayList<>(chunk.size());
            for (int i = 0; i < chunk.size(); i++) {
                entries.add(ChangeMessageVisibilityBatchRequestEntry.builder().id(Integer.toString(i))
                        .receiptHandle(((SqsDelivery) chunk.get(i)).receiptHandle())
                        .visibilityTimeout((int) delay.toSeconds()).build());
            }
            send(chunk, reply, () -> client.changeMessageVisibilityBatch(r -> r.queueUrl(url).entries(entries))
                    .thenApply(response -> response.failed()));
        });
    }

    /**
     * Copies a message to {@code deadLetterQueue}: same body, same group, the reason in attributes. Waits for
     * SQS and throws if it did not take the copy, so that the original stays where it is.
     */
    @Override
    public void copyToDeadLetterQueue(String deadLetterQueue, String consumer, Delivery delivery, String reason,
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
        String body = delivery.body();
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

    /**
     * Waits, up to {@code timeout}, for the deletes and releases sent so far, the deletes being tried again
     * included; returns whether all were settled. After it no delete is tried again: what is left comes back and
     * is recognised.
     */
    public boolean flush(Duration timeout) throws InterruptedException {
        boolean settled = calls.awaitNone(timeout);
        stopped = true;
        // Drops the retries still waiting for their backoff: run later, they would call SQS after the stop.
        retries.shutdownNow();
        return settled;
    }

    @PreDestroy
    void close() {
        stopped = true;
        retries.shutdownNow();
    }

    /**
     * Makes every message {@code received} still holds visible again at once ({@link ReceivedMessages#handBack}),
     * waiting up to {@code timeout} for SQS; returns how many went back.
     */
    public int handBack(ReceivedMessages received, Duration timeout) throws InterruptedException {
        if (received.waiting() == 0) {
            return 0;
        }
        try {
            return received.handBack(client).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return 0;
        }
    }

    /** Splits deliveries by queue into calls of at most ten. */
    private void perCall(List<Delivery> deliveries, Reply reply, BiConsumer<String, List<Delivery>> call) {
        if (deliveries.isEmpty()) {
            return;
        }
        Map<String, List<Delivery>> byQueue = new LinkedHashMap<>();
        deliveries.forEach(d -> byQueue.computeIfAbsent(d.queue(), q -> new ArrayList<>()).add(d));
        byQueue.forEach((queue, list) -> {
            String url;
            try {
                url = queues.url(queue);
            } catch (RuntimeException e) {
                list.forEach(d -> reply.refused(d, SqsQueues.rootMessage(e)));
                return;
            }
            for (int from = 0; from < list.size(); from += MAX_BATCH) {
                call.accept(url, list.subList(from, Math.min(list.size(), from + MAX_BATCH)));
            }
        });
    }

    /** One call, not waiting for its answer, once fewer than {@link #MAX_CALLS_IN_FLIGHT} are unanswered. */
    private void send(List<Delivery> chunk, Reply reply,
            Supplier<CompletableFuture<List<BatchResultErrorEntry>>> call) {
        if (!room(chunk, reply)) {
            return;
        }
        sent(call).whenComplete((failed, failure) -> {
            calls.ended();
            reply.answered(chunk.size());
            if (failure != null) {
                chunk.forEach(d -> reply.refused(d, SqsQueues.rootMessage(failure)));
                return;
            }
            for (BatchResultErrorEntry error : failed) {
                reply.refused(chunk.get(Integer.parseInt(error.id())), error.code() + ": " + error.message());
            }
        });
    }

    /** Takes a place among the calls in flight, waiting for one; false (each refused) if interrupted meanwhile. */
    private boolean room(List<Delivery> chunk, Reply reply) {
        try {
            calls.startWhenRoom();
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            chunk.forEach(d -> reply.refused(d, "interrupted"));
            return false;
        }
    }

    static <T> CompletableFuture<T> sent(Supplier<CompletableFuture<T>> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static void put(Map<String, MessageAttributeValue> attributes, String name, String value) {
        if (value == null || value.isEmpty()) {
            return;
        }
        String bounded = value.length() > MAX_ATTRIBUTE_LENGTH ? value.substring(0, MAX_ATTRIBUTE_LENGTH) + "…" : value;
        attributes.put(name, MessageAttributeValue.builder().dataType("String").stringValue(bounded).build());
    }
}
