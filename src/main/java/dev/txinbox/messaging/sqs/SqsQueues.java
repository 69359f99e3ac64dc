package dev.txinbox.messaging.sqs;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;

import dev.txinbox.messaging.CallsInFlight;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Queues as txinbox knows them: their URLs, their depth and retention (for health and start-up checks),
 * and the operator's redrive from a dead-letter queue. Settling messages is {@link SettlementCalls}'s.
 */
@ApplicationScoped
public class SqsQueues {

    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    private final SqsAsyncClient client;
    private final SqsConnectivity connectivity;
    private final Map<String, String> urls = new ConcurrentHashMap<>();
    private final CallsInFlight calls = new CallsInFlight();
    private final Set<CompletableFuture<?>> waiting = ConcurrentHashMap.newKeySet();
    private boolean closed;

    public SqsQueues(SqsAsyncClient client, SqsConnectivity connectivity) {
        this.client = client;
        this.connectivity = connectivity;
    }

    /** The queue's URL if it was resolved before; never calls SQS (for health checks, which must answer fast). */
    public Optional<String> knownUrl(String queue) {
        return Optional.ofNullable(urls.get(queue));
    }

    public String url(String queue) {
        String url = urls.get(queue);
        if (url == null) {
            if (!connectivity.reachable()) {
                // The client retries a lookup until SQS can be called: a caller that must answer now (a probe's
                // statistics, an operator) hears why at once instead of after 30 s.
                throw new IllegalStateException("the URL of queue " + queue + " is not known yet and SQS cannot be"
                        + " called now: " + connectivity.lastError());
            }
            url = call(() -> client.getQueueUrl(r -> r.queueName(queue))).queueUrl();
            urls.put(queue, url);
        }
        return url;
    }

    /** Messages in a queue: visible ones and those in flight (approximate, as SQS counts). */
    public record Depth(long visible, long inFlight, long delayed) {

        public long total() {
            return visible + inFlight + delayed;
        }
    }

    public Depth depth(String queue) {
        Map<QueueAttributeName, String> attributes = call(() -> client.getQueueAttributes(r -> r.queueUrl(url(queue))
                .attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                        QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE,
                        QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED))).attributes();
        return new Depth(number(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES)),
                number(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE)),
                number(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED)));
    }

    /** The queue's redrive policy's maxReceiveCount; empty when it has no redrive policy. */
    public Optional<Integer> maxReceiveCount(String queue) {
        String policy = call(() -> client.getQueueAttributes(r -> r.queueUrl(url(queue))
                .attributeNames(QueueAttributeName.REDRIVE_POLICY))).attributes().get(QueueAttributeName.REDRIVE_POLICY);
        if (policy == null || policy.isBlank()) {
            return Optional.empty();
        }
        java.util.regex.Matcher count = java.util.regex.Pattern.compile("\"maxReceiveCount\"\\s*:\\s*\"?(\\d+)")
                .matcher(policy);
        if (!count.find()) {
            throw new IllegalStateException("queue " + queue + " has a redrive policy without maxReceiveCount: " + policy);
        }
        return Optional.of(Integer.parseInt(count.group(1)));
    }

    /** How long SQS keeps a message in the queue (so how late a redelivery can come). */
    public Duration retentionPeriod(String queue) {
        return Duration.ofSeconds(number(call(() -> client.getQueueAttributes(r -> r.queueUrl(url(queue))
                .attributeNames(QueueAttributeName.MESSAGE_RETENTION_PERIOD))).attributes()
                .get(QueueAttributeName.MESSAGE_RETENTION_PERIOD)));
    }

    /**
     * Moves up to {@code max} messages from a dead-letter queue back to its source queue: same body,
     * same message group, the {@code event-id} attribute kept (so the inbox knows the event again), a
     * fresh deduplication id (the original one may still be inside SQS's five-minute window). Each is
     * deleted from the dead-letter queue only after the send succeeded. Returns how many moved.
     */
    public int redrive(String deadLetterQueue, String sourceQueue, int max) {
        int moved = 0;
        while (moved < max) {
            int batch = Math.min(10, max - moved);
            List<Message> messages = call(() -> client.receiveMessage(r -> r.queueUrl(url(deadLetterQueue))
                    .maxNumberOfMessages(batch).waitTimeSeconds(0).visibilityTimeout(60)
                    .messageAttributeNames(SqsDelivery.EVENT_ID_ATTRIBUTE)
                    .messageSystemAttributeNames(MessageSystemAttributeName.MESSAGE_GROUP_ID))).messages();
            if (messages.isEmpty()) {
                if (!connectivity.reachable()) {
                    // The client turns failed receives into empty ones; here the operator must hear of it.
                    throw new IllegalStateException("SQS is unreachable: " + connectivity.lastError());
                }
                return moved;
            }
            for (Message message : messages) {
                Map<String, MessageAttributeValue> attributes = new HashMap<>();
                MessageAttributeValue eventId = message.messageAttributes().get(SqsDelivery.EVENT_ID_ATTRIBUTE);
                if (eventId != null) {
                    attributes.put(SqsDelivery.EVENT_ID_ATTRIBUTE, eventId);
                }
                String group = message.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID);
                call(() -> client.sendMessage(r -> {
                    r.queueUrl(url(sourceQueue)).messageBody(message.body()).messageAttributes(attributes);
                    if (sourceQueue.endsWith(".fifo")) {
                        r.messageGroupId(group != null ? group : "redriven").messageDeduplicationId(UUID.randomUUID().toString());
                    }
                }));
                call(() -> client.deleteMessage(r -> r.queueUrl(url(deadLetterQueue))
                        .receiptHandle(message.receiptHandle())));
                moved++;
            }
        }
        return moved;
    }

    private static long number(String value) {
        try {
            return value == null ? 0 : Long.parseLong(value);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Calls SQS and waits for its answer (at most 30 s); the stop waits for calls in flight ({@link #close}). */
    <T> T call(Supplier<CompletableFuture<T>> request) {
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the service is stopping: SQS is no longer called");
            }
            calls.started();
        }
        CompletableFuture<T> call = null;
        try {
            call = request.get();
            waiting.add(call);
            return await(call);
        } finally {
            if (call != null) {
                waiting.remove(call);
            }
            calls.ended();
        }
    }

    /**
     * From now on refuses to call SQS, and waits (at most {@code timeout}) for the calls in flight: a statistics
     * refresh, an operator's redrive. Their answers complete on the event loop, which closes after the stop;
     * one that came later logged a netty ERROR and held the stop for 10 s (seen when SQS was unreachable).
     * Returns whether none was left.
     */
    public boolean close(Duration timeout) throws InterruptedException {
        synchronized (this) {
            closed = true;
        }
        if (calls.awaitNone(timeout)) {
            return true;
        }
        // Their callers get a refusal now instead of waiting out the call's 30 s, which held the stop that long.
        waiting.forEach(call -> call.cancel(true));
        return false;
    }

    private static <T> T await(CompletableFuture<T> call) {
        try {
            return call.get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            call.cancel(true);
            throw new IllegalStateException("interrupted while calling SQS", e);
        } catch (TimeoutException e) {
            call.cancel(true);
            throw new IllegalStateException("SQS did not answer within " + CALL_TIMEOUT.toSeconds() + " s", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
        }
    }

    public static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }
}
