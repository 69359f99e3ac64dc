package dev.txinbox.messaging.sqs;

import java.math.BigInteger;
import java.time.Instant;
import java.util.Map;

import dev.txinbox.messaging.Delivery;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * One received SQS message with the system attributes txinbox relies on, read once. The pipeline reads it as a
 * {@link Delivery}; the SQS message itself (receipt handle, attributes) is for the adapter's settlement calls.
 */
public final class SqsDelivery extends Delivery {

    public static final String EVENT_ID_ATTRIBUTE = "event-id";
    /** The producer's W3C trace context, a message attribute. */
    public static final String TRACEPARENT_ATTRIBUTE = "traceparent";

    private final Message message;

    public SqsDelivery(String queue, Message message, String groupId, BigInteger sequenceNumber, int receiveCount,
            Instant sentAt, Instant firstReceivedAt, String eventIdAttribute, String traceparent, String awsTraceHeader,
            long takenAtNanos) {
        this(queue, message, groupId, sequenceNumber, receiveCount, sentAt, firstReceivedAt, eventIdAttribute,
                traceparent, awsTraceHeader, takenAtNanos, takenAtNanos);
    }

    private SqsDelivery(String queue, Message message, String groupId, BigInteger sequenceNumber, int receiveCount,
            Instant sentAt, Instant firstReceivedAt, String eventIdAttribute, String traceparent, String awsTraceHeader,
            long receivedAtNanos, long takenAtNanos) {
        super(queue, message.messageId(), message.body(), groupId, sequenceNumber, receiveCount, sentAt,
                firstReceivedAt, eventIdAttribute, traceparent, awsTraceHeader, receivedAtNanos, takenAtNanos);
        this.message = message;
    }

    public static SqsDelivery of(String queue, Message message) {
        long now = System.nanoTime();
        return of(queue, message, now, now);
    }

    /** {@code receivedAtNanos}: when the receive that brought it answered, as {@link ReceivedMessages} noted it. */
    static SqsDelivery of(String queue, Message message, long receivedAtNanos, long takenAtNanos) {
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
                system.get(MessageSystemAttributeName.AWS_TRACE_HEADER), receivedAtNanos, takenAtNanos);
    }

    public Message message() {
        return message;
    }

    public String receiptHandle() {
        return message.receiptHandle();
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
