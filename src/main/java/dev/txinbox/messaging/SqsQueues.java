package dev.txinbox.messaging;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.txinbox.ops.InboxMetrics;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The SQS calls txinbox makes itself, beside the connector's receives. Deleting and releasing never
 * throw: a failed delete only means the message comes back, and the inbox recognises it then.
 */
@ApplicationScoped
public class SqsQueues {

    private static final Logger LOG = Logger.getLogger(SqsQueues.class);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
    private static final int MAX_ATTRIBUTE_LENGTH = 4000;

    private final SqsAsyncClient client;
    private final InboxMetrics metrics;
    private final SqsConnectivity connectivity;
    private final Map<String, String> urls = new ConcurrentHashMap<>();

    public SqsQueues(SqsAsyncClient client, InboxMetrics metrics, SqsConnectivity connectivity) {
        this.client = client;
        this.metrics = metrics;
        this.connectivity = connectivity;
    }

    /** The queue's URL if it was resolved before; never calls SQS (for health checks, which must answer fast). */
    public Optional<String> knownUrl(String queue) {
        return Optional.ofNullable(urls.get(queue));
    }

    public String url(String queue) {
        String url = urls.get(queue);
        if (url == null) {
            url = await(client.getQueueUrl(r -> r.queueName(queue))).queueUrl();
            urls.put(queue, url);
        }
        return url;
    }

    /** Makes a message visible again after {@code delay}; false (and logged) if SQS refused. */
    boolean release(String consumer, SqsDelivery delivery, Duration delay) {
        try {
            await(client.changeMessageVisibility(r -> r.queueUrl(url(delivery.queue()))
                    .receiptHandle(delivery.receiptHandle()).visibilityTimeout((int) delay.toSeconds())));
            return true;
        } catch (RuntimeException e) {
            metrics.ackFailed(consumer);
            LOG.warnf("could not change the visibility of message %s in %s (%s); it comes back after its"
                    + " visibility timeout instead", delivery.messageId(), delivery.queue(), rootMessage(e));
            return false;
        }
    }

    /** Hands every received message txinbox has not taken back to its queue; how many SQS took back. */
    int handBack(ReceivedMessages received, Duration timeout) {
        if (received.waiting() == 0) {
            return 0;
        }
        try {
            return received.handBack(client).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        } catch (ExecutionException | TimeoutException e) {
            return 0;
        }
    }

    /** Makes a message visible again now, without waiting for SQS's answer (for threads that must not block). */
    void releaseLater(String consumer, SqsDelivery delivery) {
        String url = urls.get(delivery.queue());
        if (url == null) {
            return; // never resolved: the message simply comes back after its visibility timeout
        }
        client.changeMessageVisibility(r -> r.queueUrl(url).receiptHandle(delivery.receiptHandle()).visibilityTimeout(0))
                .whenComplete((ignored, failure) -> {
                    if (failure != null) {
                        metrics.ackFailed(consumer);
                        LOG.debugf("could not hand message %s back: %s", delivery.messageId(), rootMessage(failure));
                    }
                });
    }

    /**
     * Copies a message to a dead-letter queue: same body, same group, the reason in attributes. Throws
     * if SQS did not accept it, so that the caller keeps the original.
     */
    void deadLetter(String deadLetterQueue, String consumer, SqsDelivery delivery, String reason, String error,
            int attempts) {
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
        await(client.sendMessage(r -> {
            r.queueUrl(url(deadLetterQueue)).messageBody(body == null || body.isEmpty() ? " " : body)
                    .messageAttributes(attributes);
            if (deadLetterQueue.endsWith(".fifo")) {
                // The source message id as dedup id: a second copy after a crash in between is dropped by SQS.
                r.messageGroupId(delivery.groupId() != null ? delivery.groupId() : "dead-letters")
                        .messageDeduplicationId(delivery.messageId());
            }
        }));
    }

    /** Messages in a queue: visible ones and those in flight (approximate, as SQS counts). */
    public record Depth(long visible, long inFlight, long delayed) {

        public long total() {
            return visible + inFlight + delayed;
        }
    }

    public Depth depth(String queue) {
        Map<QueueAttributeName, String> attributes = await(client.getQueueAttributes(r -> r.queueUrl(url(queue))
                .attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                        QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE,
                        QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED))).attributes();
        return new Depth(number(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES)),
                number(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE)),
                number(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED)));
    }

    /** How long SQS keeps a message in the queue (so how late a redelivery can come). */
    public Duration retentionPeriod(String queue) {
        return Duration.ofSeconds(number(await(client.getQueueAttributes(r -> r.queueUrl(url(queue))
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
            List<Message> messages = await(client.receiveMessage(r -> r.queueUrl(url(deadLetterQueue))
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
                await(client.sendMessage(r -> {
                    r.queueUrl(url(sourceQueue)).messageBody(message.body()).messageAttributes(attributes);
                    if (sourceQueue.endsWith(".fifo")) {
                        r.messageGroupId(group != null ? group : "redriven").messageDeduplicationId(UUID.randomUUID().toString());
                    }
                }));
                await(client.deleteMessage(r -> r.queueUrl(url(deadLetterQueue)).receiptHandle(message.receiptHandle())));
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

    private static void put(Map<String, MessageAttributeValue> attributes, String name, String value) {
        if (value == null || value.isEmpty()) {
            return;
        }
        String bounded = value.length() > MAX_ATTRIBUTE_LENGTH ? value.substring(0, MAX_ATTRIBUTE_LENGTH) + "…" : value;
        attributes.put(name, MessageAttributeValue.builder().dataType("String").stringValue(bounded).build());
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

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }
}
