package dev.txinbox.messaging.sqs;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

import dev.txinbox.inbox.IncomingMessage;
import dev.txinbox.inbox.MessageSource;
import io.opentelemetry.context.Context;
import io.smallrye.reactive.messaging.aws.sqs.SqsIncomingMetadata;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/** One received SQS message with the system attributes txinbox relies on, read once. */
public record SqsDelivery(String queue, Message message, String groupId, BigInteger sequenceNumber, int receiveCount,
        Instant sentAt, Instant firstReceivedAt, String eventIdAttribute, String traceparent, String awsTraceHeader,
        long takenAtNanos) {

    public static final String EVENT_ID_ATTRIBUTE = "event-id";
    /** The producer's W3C trace context, a message attribute. */
    public static final String TRACEPARENT_ATTRIBUTE = "traceparent";
    /** The X-Ray header SQS keeps as a system attribute when the producer sent one. */
    public static final String AWS_TRACE_HEADER = "AWSTraceHeader";

    /** The SQS message a channel delivered, if the connector attached it (it always does). */
    public static Optional<SqsDelivery> of(String queue, org.eclipse.microprofile.reactive.messaging.Message<?> message) {
        return message.getMetadata(SqsIncomingMetadata.class).map(metadata -> of(queue, metadata.getMessage()));
    }

    public static SqsDelivery of(String queue, Message message) {
        Map<MessageSystemAttributeName, String> system = message.attributes();
        Map<String, MessageAttributeValue> attributes = message.messageAttributes();
        MessageAttributeValue eventId = attributes.get(EVENT_ID_ATTRIBUTE);
        MessageAttributeValue traceparent = attributes.get(TRACEPARENT_ATTRIBUTE);
        return new SqsDelivery(queue, message,
                system.get(MessageSystemAttributeName.MESSAGE_GROUP_ID),
                parseSequence(system.get(MessageSystemAttributeName.SEQUENCE_NUMBER)),
                parseInt(system.get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT), 1),
                parseEpochMillis(system.get(MessageSystemAttributeName.SENT_TIMESTAMP)),
                parseEpochMillis(system.get(MessageSystemAttributeName.APPROXIMATE_FIRST_RECEIVE_TIMESTAMP)),
                eventId == null ? null : eventId.stringValue(),
                traceparent == null ? null : traceparent.stringValue(),
                system.get(MessageSystemAttributeName.AWS_TRACE_HEADER), System.nanoTime());
    }

    /**
     * How long this copy has been in flight, at least. Measured from when txinbox took it from the channel
     * and, for a first delivery, from SQS's first-receive time: a copy that waited in the connector's
     * buffer is older than it looks here.
     */
    public Duration age() {
        Duration taken = Duration.ofNanos(System.nanoTime() - takenAtNanos);
        if (receiveCount == 1 && firstReceivedAt != null) {
            Duration received = Duration.between(firstReceivedAt, Instant.now());
            return received.compareTo(taken) > 0 ? received : taken;
        }
        return taken;
    }

    public String messageId() {
        return message.messageId();
    }

    public String receiptHandle() {
        return message.receiptHandle();
    }

    /** Messages of one group are processed one after another; without a group each is its own. */
    public String orderingKey() {
        return groupId != null ? groupId : "message:" + message.messageId();
    }

    /**
     * As the inbox receives it, with the trace its handler records outbox events in ({@code trace}, null when not
     * traced) and the {@code traceparent} the row keeps.
     */
    public IncomingMessage toIncoming(String consumer, String traceparent, Context trace) {
        return new IncomingMessage(consumer, message.body(), eventIdAttribute,
                new MessageSource(queue, message.messageId(), groupId, sentAt, receiveCount, traceparent), trace);
    }

    private static BigInteger parseSequence(String value) {
        try {
            return value == null ? null : new BigInteger(value);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static int parseInt(String value, int fallback) {
        try {
            return value == null ? fallback : Integer.parseInt(value);
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    private static Instant parseEpochMillis(String value) {
        try {
            return value == null ? null : Instant.ofEpochMilli(Long.parseLong(value));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
