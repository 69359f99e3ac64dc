package dev.txinbox.messaging.sqs;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
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
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
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
    /** How long a refused delete is tried again; its message comes back after that and is recognised. */
    private static final Duration MAX_RETRYING = Duration.ofMinutes(15);

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
                new Deletion(url, chunk, visibilityTimeout, reply).attempt(chunk);
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
        retries.shutdown();
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

    private static <T> CompletableFuture<T> sent(Supplier<CompletableFuture<T>> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * The deletes of one call, until SQS has taken each or refused it for good. A delete that is refused for a
     * reason that passes (the queue's rate, SQS's own fault, the network, a timeout, credentials being renewed) is
     * tried again after a backoff: given up, its message would come back, be recognised and be deleted again, and
     * with every receive SQS counts one more towards the queue's {@code maxReceiveCount}, until its redrive moves
     * the message, already applied, to the DLQ. Meanwhile the messages are kept invisible (ChangeMessageVisibilityBatch,
     * a quota of its own), so they neither come back nor count a receive. The call keeps its place among the calls
     * in flight until it is settled: while SQS refuses deletes the workers slow down, and the stop waits for it.
     */
    private final class Deletion {

        private final String url;
        private final List<Delivery> chunk;
        private final Duration visibilityTimeout;
        private final Reply reply;
        private final long startedNanos = System.nanoTime();
        /**
         * {@link System#nanoTime} until which these messages are surely invisible: until the first extension, not
         * known (the queue's own visibility timeout may differ from the consumer's setting), so the first refusal
         * extends it.
         */
        private long visibleUntilNanos = System.nanoTime();
        private int attempts;

        Deletion(String url, List<Delivery> chunk, Duration visibilityTimeout, Reply reply) {
            this.url = url;
            this.chunk = chunk;
            this.visibilityTimeout = visibilityTimeout;
            this.reply = reply;
        }

        void attempt(List<Delivery> pending) {
            attempts++;
            List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>(pending.size());
            for (int i = 0; i < pending.size(); i++) {
                entries.add(DeleteMessageBatchRequestEntry.builder().id(Integer.toString(i))
                        .receiptHandle(((SqsDelivery) pending.get(i)).receiptHandle()).build());
            }
            sent(() -> client.deleteMessageBatch(r -> r.queueUrl(url).entries(entries)))
                    .whenComplete((response, failure) -> answered(pending,
                            failure == null ? response.failed() : List.of(), failure));
        }

        private void answered(List<Delivery> pending, List<BatchResultErrorEntry> failed, Throwable failure) {
            List<Delivery> again = new ArrayList<>();
            String why;
            if (failure != null) {
                why = SqsQueues.rootMessage(failure);
                if (passes(failure)) {
                    again.addAll(pending);
                } else {
                    pending.forEach(d -> reply.refused(d, why));
                }
            } else {
                why = failed.isEmpty() ? null : failed.get(0).code() + ": " + failed.get(0).message();
                for (BatchResultErrorEntry error : failed) {
                    Delivery delivery = pending.get(Integer.parseInt(error.id()));
                    if (passes(error)) {
                        again.add(delivery);
                    } else {
                        reply.refused(delivery, error.code() + ": " + error.message());
                    }
                }
            }
            if (again.isEmpty()) {
                settled();
                return;
            }
            Duration tried = Duration.ofNanos(System.nanoTime() - startedNanos);
            if (stopped || tried.compareTo(MAX_RETRYING) >= 0) {
                String after = why + (stopped ? "; the service stops" : "; given up after " + tried.toSeconds() + " s");
                again.forEach(d -> reply.refused(d, after));
                settled();
                return;
            }
            reply.retrying(pending.get(0).queue(), again.size(), why);
            Duration delay = backoff();
            keptInvisible(again, delay).whenComplete((ignored, unused) -> retryAfter(delay, again));
        }

        /** Tries again after the backoff, or, once the service stops retrying, gives up at once. */
        private void retryAfter(Duration delay, List<Delivery> again) {
            try {
                retries.schedule(() -> attempt(again), delay.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                again.forEach(d -> reply.refused(d, "the service stops"));
                settled();
            }
        }

        /** 250 ms doubling, at most 5 s and at most a third of the visibility timeout. */
        private Duration backoff() {
            long millis = Math.min(250L << Math.min(attempts - 1, 5), Math.min(5_000, visibilityTimeout.toMillis() / 3));
            return Duration.ofMillis(Math.max(millis, 50));
        }

        /**
         * Extends the messages' visibility by the consumer's visibility timeout unless they stay invisible until
         * well after the next attempt. Completes either way: a message that becomes visible comes back
         * and is recognised, and the attempt with its old receipt handle is refused for good.
         */
        private CompletableFuture<Void> keptInvisible(List<Delivery> pending, Duration delay) {
            long now = System.nanoTime();
            Duration margin = visibilityTimeout.dividedBy(3);
            if (visibleUntilNanos - now > delay.plus(margin).toNanos()) {
                return CompletableFuture.completedFuture(null);
            }
            List<ChangeMessageVisibilityBatchRequestEntry> entries = new ArrayList<>(pending.size());
            for (int i = 0; i < pending.size(); i++) {
                entries.add(ChangeMessageVisibilityBatchRequestEntry.builder().id(Integer.toString(i))
                        .receiptHandle(((SqsDelivery) pending.get(i)).receiptHandle())
                        .visibilityTimeout((int) Math.max(1, visibilityTimeout.toSeconds())).build());
            }
            return sent(() -> client.changeMessageVisibilityBatch(r -> r.queueUrl(url).entries(entries)))
                    .handle((response, failure) -> {
                        if (failure == null && response.failed().isEmpty()) {
                            visibleUntilNanos = now + visibilityTimeout.toNanos();
                        }
                        return null;
                    });
        }

        private void settled() {
            calls.ended();
            reply.answered(chunk.size());
        }
    }

    /** Whether a refused call may well be taken when tried again: nothing about the request itself is wrong. */
    static boolean passes(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                : failure;
        if (Throttling.throttled(cause) || CredentialsProblem.of(cause).isPresent()) {
            return true;
        }
        if (cause instanceof AwsServiceException service) {
            return service.statusCode() >= 500 || service.statusCode() == 429;
        }
        return cause instanceof SdkClientException;
    }

    /** Whether one refused entry may well be taken when tried again: SQS's own fault, or the rate. */
    static boolean passes(BatchResultErrorEntry error) {
        return !Boolean.TRUE.equals(error.senderFault()) || Throttling.throttlingCode(error.code());
    }

    private static void put(Map<String, MessageAttributeValue> attributes, String name, String value) {
        if (value == null || value.isEmpty()) {
            return;
        }
        String bounded = value.length() > MAX_ATTRIBUTE_LENGTH ? value.substring(0, MAX_ATTRIBUTE_LENGTH) + "…" : value;
        attributes.put(name, MessageAttributeValue.builder().dataType("String").stringValue(bounded).build());
    }
}
