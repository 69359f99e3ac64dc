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
        Instant sentAt, Instant firstReceivedAt, String eventIdAttribute, long takenAtNanos) {

    static final String EVENT_ID_ATTRIBUTE = "event-id";

    static SqsDelivery of(String queue, Message message) {
        Map<MessageSystemAttributeName, String> system = message.attributes();
        MessageAttributeValue eventId = message.messageAttributes().get(EVENT_ID_ATTRIBUTE);
        return new SqsDelivery(queue, message,
                system.get(MessageSystemAttributeName.MESSAGE_GROUP_ID),
                parseSequence(system.get(MessageSystemAttributeName.SEQUENCE_NUMBER)),
                parseInt(system.get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT), 1),
                parseEpochMillis(system.get(MessageSystemAttributeName.SENT_TIMESTAMP)),
                parseEpochMillis(system.get(MessageSystemAttributeName.APPROXIMATE_FIRST_RECEIVE_TIMESTAMP)),
                eventId == null ? null : eventId.stringValue(), System.nanoTime());
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
        return new IncomingMessage(consumer, message.body(), eventIdAttribute,
                new MessageSource(queue, message.messageId(), groupId, sentAt, receiveCount));
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
