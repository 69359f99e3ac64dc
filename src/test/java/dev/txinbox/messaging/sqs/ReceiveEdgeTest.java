package dev.txinbox.messaging.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.eclipse.microprofile.reactive.messaging.Metadata;
import org.junit.jupiter.api.Test;

import dev.txinbox.messaging.Delivery;
import io.smallrye.reactive.messaging.aws.sqs.SqsIncomingMetadata;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * The adapter's edges that need no broker: what the channel delivered, as the pipeline's delivery; a worker's begin,
 * after which the stop no longer hands the message back.
 */
class ReceiveEdgeTest {

    private final ReceivedMessages received = new ReceivedMessages();

    private static Message sqsMessage() {
        return Message.builder().messageId("m1").receiptHandle("rh-1").body("{}")
                .attributes(Map.of(MessageSystemAttributeName.MESSAGE_GROUP_ID, "g",
                        MessageSystemAttributeName.SEQUENCE_NUMBER, "18777",
                        MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT, "3",
                        MessageSystemAttributeName.SENT_TIMESTAMP, "1767225600000",
                        MessageSystemAttributeName.AWS_TRACE_HEADER, "Root=1-abc"))
                .messageAttributes(Map.of(SqsDelivery.EVENT_ID_ATTRIBUTE, string("e1"),
                        SqsDelivery.TRACEPARENT_ATTRIBUTE, string("00-producer")))
                .build();
    }

    private static MessageAttributeValue string(String value) {
        return MessageAttributeValue.builder().dataType("String").stringValue(value).build();
    }

    private static org.eclipse.microprofile.reactive.messaging.Message<String> fromChannel(Message message) {
        return org.eclipse.microprofile.reactive.messaging.Message.of(message.body(),
                Metadata.of(new SqsIncomingMetadata(message)));
    }

    @Test
    void theDeliveryCarriesTheMessagesFactsAndTheAdapterKeepsTheMessage() {
        Message message = sqsMessage();
        Delivery delivery = received.delivery("q.fifo", fromChannel(message));
        assertEquals("q.fifo", delivery.queue());
        assertEquals("m1", delivery.messageId());
        assertEquals("{}", delivery.body());
        assertEquals("g", delivery.groupId());
        assertEquals(BigInteger.valueOf(18777), delivery.sequenceNumber());
        assertEquals(3, delivery.receiveCount());
        assertEquals(Instant.ofEpochMilli(1767225600000L), delivery.sentAt());
        assertEquals("e1", delivery.eventIdAttribute());
        assertEquals("00-producer", delivery.traceparent());
        assertEquals("Root=1-abc", delivery.awsTraceHeader());
        assertEquals("rh-1", assertInstanceOf(SqsDelivery.class, delivery).receiptHandle());
    }

    @Test
    void aMessageNotNotedAtItsReceiveWaitedNothingInTheBuffer() {
        Delivery delivery = received.delivery("q.fifo", fromChannel(sqsMessage()));
        assertEquals(delivery.takenAtNanos(), delivery.receivedAtNanos());
    }

    @Test
    void aMessageNotedAtItsReceiveIsTakenAfterIt() {
        Message message = sqsMessage();
        received.received("https://sqs/q.fifo", List.of(message));
        Delivery delivery = received.delivery("q.fifo", fromChannel(message));
        assertTrue(delivery.receivedAtNanos() <= delivery.takenAtNanos());
        assertEquals(1, received.waiting(), "taken, not begun: the stop would still hand it back");
    }

    @Test
    void aChannelMessageWithoutAnSqsMessageIsNoDelivery() {
        assertNull(received.delivery("q.fifo", org.eclipse.microprofile.reactive.messaging.Message.of("{}")));
    }

    @Test
    void aBatchBegunThroughTheSettlementPortIsNoLongerHandedBack() {
        Message message = sqsMessage();
        received.received("https://sqs/q.fifo", List.of(message));
        Delivery delivery = received.delivery("q.fifo", fromChannel(message));
        new SettlementCalls(null, null, received).begin(List.of(delivery));
        assertEquals(0, received.waiting());
    }
}
