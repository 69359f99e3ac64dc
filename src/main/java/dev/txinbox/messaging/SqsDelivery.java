package dev.txinbox.messaging;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import dev.txinbox.inbox.IncomingMessage;
import dev.txinbox.inbox.MessageSource;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/** One received SQS message with the system attributes txinbox relies on, read once. */
record SqsDelivery(String queue, Message message, String groupId, BigInteger sequenceNumber, int receiveCount,
        Instant sentAt, Instant firstReceivedAt, String eventIdAttribute, String traceparent, String awsTraceHeader,
        long takenAtNanos) {

    static final String EVENT_ID_ATTRIBUTE = "event-id";
    /** The X-Ray header SQS keeps as a system attribute when the producer sent one. */
    static final String AWS_TRACE_HEADER = "AWSTraceHeader";

    static SqsDelivery of(String queue, Message message) {
        Map<MessageSystemAttributeName, String> system = message.attributes();
        Map<String, MessageAttributeValue> attributes = message.messageAttributes();
        MessageAttributeValue eventId = attributes.get(EVENT_ID_ATTRIBUTE);
        MessageAttributeValue traceparent = attributes.get(MessageTracing.TRACEPARENT);
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
    Duration age() {
        Duration taken = Duration.ofNanos(System.nanoTime() - takenAtNanos);
        if (receiveCount == 1 && firstReceivedAt != null) {
            Duration received = Duration.between(firstReceivedAt, Instant.now());
            return received.compareTo(taken) > 0 ? received : taken;
        }
        return taken;
    }

    String messageId() {
        return message.messageId();
    }

    String receiptHandle() {
        return message.receiptHandle();
    }

    /** Messages of one group are processed one after another; without a group each is its own. */
    String orderingKey() {
        return groupId != null ? groupId : "message:" + message.messageId();
    }

    IncomingMessage toIncoming(String consumer) {
        return toIncoming(consumer, MessageTracing.Traced.NONE);
    }

    /** As the inbox receives it, with the context its handler records outbox events in and the row keeps. */
    IncomingMessage toIncoming(String consumer, MessageTracing.Traced traced) {
        return new IncomingMessage(consumer, message.body(), eventIdAttribute,
                new MessageSource(queue, message.messageId(), groupId, sentAt, receiveCount, traced.traceparent()),
                traced.context());
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
