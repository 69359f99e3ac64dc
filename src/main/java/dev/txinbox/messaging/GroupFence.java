package dev.txinbox.messaging;

import java.math.BigInteger;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * Keeps a failed message from being overtaken by later messages of its own group.
 *
 * <p>SQS FIFO hands out a group's messages in order and nothing more of the group while any of them is
 * in flight. But one receive returns up to ten messages, so m2 and m3 may already sit in this process
 * when m1 fails. If they were applied, m1's retry would come after them. So when m1 of group G fails,
 * G is held: every later message of G (higher SQS sequence number) that shows up before m1 comes back is
 * released unprocessed, which also frees the group so that the broker hands out m1 again first.
 *
 * <p>The hold ends when m1 comes back. It also ends when a released message of G is delivered a second
 * time before m1 (only possible once m1 has left the queue: finished by another instance, or moved by the
 * broker's redrive policy), and in any case after m1's retry delay plus the visibility timeout, so that a
 * hold can never block a group for good.
 */
@ApplicationScoped
public class GroupFence {

    private record Hold(String messageId, BigInteger sequence, Instant until, Set<String> released) {
    }

    private final Map<String, Hold> holds = new ConcurrentHashMap<>();
    private final Clock clock;

    public GroupFence() {
        this(Clock.systemUTC());
    }

    GroupFence(Clock clock) {
        this.clock = clock;
    }

    /** Message {@code failed} will be retried after {@code retryDelay}: hold its group until then. */
    void hold(String consumer, Delivery failed, Duration retryDelay, Duration visibilityTimeout) {
        if (failed.groupId() == null || failed.sequenceNumber() == null) {
            return;
        }
        holds.put(key(consumer, failed.groupId()), new Hold(failed.messageId(), failed.sequenceNumber(),
                clock.instant().plus(retryDelay).plus(visibilityTimeout), ConcurrentHashMap.newKeySet()));
    }

    /** Whether {@code delivery} must be released unprocessed because an earlier message of its group failed. */
    boolean holdsBack(String consumer, Delivery delivery) {
        if (delivery.groupId() == null) {
            return false;
        }
        String key = key(consumer, delivery.groupId());
        Hold hold = holds.get(key);
        if (hold == null) {
            return false;
        }
        boolean overtakes = !hold.messageId().equals(delivery.messageId())
                && clock.instant().isBefore(hold.until())
                && delivery.sequenceNumber() != null && delivery.sequenceNumber().compareTo(hold.sequence()) > 0
                && hold.released().add(delivery.messageId());
        if (!overtakes) {
            holds.remove(key, hold);
        }
        return overtakes;
    }

    private static String key(String consumer, String groupId) {
        return consumer + '\u0000' + groupId;
    }
}
