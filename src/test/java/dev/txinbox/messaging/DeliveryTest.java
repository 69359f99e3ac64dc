package dev.txinbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import dev.txinbox.inbox.IncomingMessage;

/** What the pipeline decides from a delivery alone: its ordering key, its age, the inbox's view of it. No broker. */
class DeliveryTest {

    /** A transport's delivery with nothing of its own. */
    private static final class Plain extends Delivery {

        Plain(String groupId, int receiveCount, Instant firstReceivedAt, long takenAtNanos) {
            super("q.fifo", "m1", "{\"eventId\":\"e1\"}", groupId, BigInteger.TEN, receiveCount,
                    Instant.parse("2026-01-01T00:00:00Z"), firstReceivedAt, "e1", "00-trace", null, takenAtNanos,
                    takenAtNanos);
        }
    }

    @Test
    void aGroupOrdersItsMessagesAndAMessageWithoutOneIsItsOwn() {
        assertEquals("g", new Plain("g", 1, null, System.nanoTime()).orderingKey());
        assertEquals("message:m1", new Plain(null, 1, null, System.nanoTime()).orderingKey());
    }

    @Test
    void aFirstDeliveryIsAsOldAsTheBrokersFirstReceiveWhenThatIsEarlierThanTheTake() {
        Delivery delivery = new Plain("g", 1, Instant.now().minusSeconds(40), System.nanoTime());
        assertTrue(delivery.age().compareTo(Duration.ofSeconds(39)) > 0, delivery.age().toString());
    }

    @Test
    void aRedeliveryIsAsOldAsItsTakeWhateverTheFirstReceive() {
        Delivery delivery = new Plain("g", 2, Instant.now().minusSeconds(40),
                System.nanoTime() - Duration.ofSeconds(3).toNanos());
        Duration age = delivery.age();
        assertTrue(age.compareTo(Duration.ofSeconds(3)) >= 0 && age.compareTo(Duration.ofSeconds(39)) < 0,
                age.toString());
    }

    @Test
    void aFirstDeliveryWithoutAFirstReceiveTimeIsAsOldAsItsTake() {
        Delivery delivery = new Plain("g", 1, null, System.nanoTime() - Duration.ofSeconds(5).toNanos());
        assertTrue(delivery.age().compareTo(Duration.ofSeconds(5)) >= 0, delivery.age().toString());
    }

    @Test
    void theInboxReceivesItsBodyAndWhereItCameFromWithTheTraceTheRowKeeps() {
        IncomingMessage incoming = new Plain("g", 2, null, System.nanoTime()).toIncoming("orders", "00-span", null);
        assertEquals("orders", incoming.consumer());
        assertEquals("{\"eventId\":\"e1\"}", incoming.body());
        assertEquals("e1", incoming.eventIdAttribute());
        assertEquals("q.fifo", incoming.source().queue());
        assertEquals("m1", incoming.source().messageId());
        assertEquals("g", incoming.source().groupId());
        assertEquals(Instant.parse("2026-01-01T00:00:00Z"), incoming.source().sentAt());
        assertEquals(2, incoming.source().receiveCount());
        assertEquals("00-span", incoming.source().traceparent(), "the processing's trace, not the producer's");
        assertNull(incoming.trace());
    }

    @Test
    void twoCopiesOfOneMessageAreTwoDeliveries() {
        long now = System.nanoTime();
        assertNotEquals(new Plain("g", 1, null, now), new Plain("g", 1, null, now));
    }
}
