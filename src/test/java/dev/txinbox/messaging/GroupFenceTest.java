package dev.txinbox.messaging;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import org.junit.jupiter.api.Test;

import dev.txinbox.messaging.sqs.SqsDelivery;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The fence across batches: after m1 of a group fails, its later messages that show up before m1 comes
 * back are released, and the hold always ends. A hand-turned clock, no broker.
 */
class GroupFenceTest {

    private static final Duration RETRY = Duration.ofSeconds(4), VISIBILITY = Duration.ofSeconds(30);

    private final MutableClock clock = new MutableClock();
    private final GroupFence fence = new GroupFence(clock);

    private static SqsDelivery delivery(String id, String group, long sequence) {
        return new SqsDelivery("q.fifo", Message.builder().messageId(id).receiptHandle("rh-" + id).build(), group,
                BigInteger.valueOf(sequence), 1, null, null, null, null, null, System.nanoTime());
    }

    @Test
    void laterMessagesOfAFailedMessagesGroupAreHeldBackUntilItComesBack() {
        SqsDelivery m1 = delivery("m1", "g", 10), m2 = delivery("m2", "g", 11), m3 = delivery("m3", "g", 12);
        fence.hold("orders", m1, RETRY, VISIBILITY);
        assertTrue(fence.holdsBack("orders", m2));
        assertTrue(fence.holdsBack("orders", m3));
        assertFalse(fence.holdsBack("orders", m1), "m1's own retry is never held back, and it ends the hold");
        assertFalse(fence.holdsBack("orders", m2), "after m1 came back, m2 goes");
    }

    @Test
    void otherGroupsOtherConsumersAndEarlierMessagesAreNeverHeld() {
        fence.hold("orders", delivery("m1", "g", 10), RETRY, VISIBILITY);
        assertFalse(fence.holdsBack("orders", delivery("x", "other", 11)));
        assertFalse(fence.holdsBack("ledger", delivery("y", "g", 11)));
        assertFalse(fence.holdsBack("orders", delivery("old", "g", 9)), "an earlier message does not overtake m1");
    }

    @Test
    void aMessageReleasedOnceAndDeliveredAgainBeforeTheFailedOneEndsTheHold() {
        // Only possible once m1 has left the queue (finished elsewhere, or moved by the redrive policy).
        SqsDelivery m2 = delivery("m2", "g", 11);
        fence.hold("orders", delivery("m1", "g", 10), RETRY, VISIBILITY);
        assertTrue(fence.holdsBack("orders", m2));
        assertFalse(fence.holdsBack("orders", m2));
        assertFalse(fence.holdsBack("orders", delivery("m3", "g", 12)), "the hold is gone");
    }

    @Test
    void theHoldEndsAfterTheRetryDelayAndAVisibilityTimeoutWhateverHappens() {
        fence.hold("orders", delivery("m1", "g", 10), RETRY, VISIBILITY);
        clock.advance(RETRY.plus(VISIBILITY).minusSeconds(1));
        assertTrue(fence.holdsBack("orders", delivery("m2", "g", 11)));
        clock.advance(Duration.ofSeconds(2));
        assertFalse(fence.holdsBack("orders", delivery("m3", "g", 12)));
    }

    @Test
    void messagesWithoutAGroupOrSequenceAreNeverHeld() {
        fence.hold("orders", new SqsDelivery("q", Message.builder().messageId("n").build(), null, null, 1, null, null,
                null, null, null, 0), RETRY, VISIBILITY);
        fence.hold("orders", delivery("m1", "g", 10), RETRY, VISIBILITY);
        assertFalse(fence.holdsBack("orders", new SqsDelivery("q", Message.builder().messageId("z").build(), null, null,
                1, null, null, null, null, null, 0)));
    }

    private static final class MutableClock extends Clock {

        private Instant now = Instant.parse("2026-12-03T12:00:00Z");

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }
}
