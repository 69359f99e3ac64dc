package dev.txinbox.inbox;

import java.time.Duration;

/**
 * The inbox's verdict on one message.
 *
 * @param outcome    the outcome; {@link Outcome#DEAD_LETTERED} and {@link Outcome#RETRIED} still need the
 *                   transport to act before they are final
 * @param eventId    the event id, when the body yielded one
 * @param detail     why (rejection reason, error, the conflicting hashes), or null
 * @param attempts   failed attempts recorded so far (0 when none was recorded)
 * @param retryDelay for {@link Outcome#RETRIED}: when to try again
 * @param outage     for {@link Outcome#RETRIED}: the database was unreachable, so no attempt was recorded;
 *                   the transport should pause rather than spin
 * @param heldBack   for {@link Outcome#RETRIED}: not processed at all, because an earlier message of its
 *                   group in the same batch failed; it goes back to the queue now, counting nothing, so
 *                   that it comes after the failed one's retry
 * @param deadLetter for {@link Outcome#DEAD_LETTERED}: the reason and the DEAD row to record once the message's
 *                   copy is in the dead-letter queue; null otherwise
 */
public record InboxResult(Outcome outcome, String eventId, String detail, int attempts, Duration retryDelay,
        boolean outage, boolean heldBack, DeadLetter deadLetter) {

    public static InboxResult of(Outcome outcome, String eventId, String detail) {
        return new InboxResult(outcome, eventId, detail, 0, null, false, false, null);
    }

    public static InboxResult retry(String eventId, String error, int attempts, Duration delay) {
        return new InboxResult(Outcome.RETRIED, eventId, error, attempts, delay, false, false, null);
    }

    public static InboxResult outage(String eventId, String error, Duration delay) {
        return new InboxResult(Outcome.RETRIED, eventId, error, 0, delay, true, false, null);
    }

    public static InboxResult heldBack(String eventId, String detail) {
        return new InboxResult(Outcome.RETRIED, eventId, detail, 0, Duration.ZERO, false, true, null);
    }

    static InboxResult deadLettered(String eventId, String detail, int attempts, DeadLetter deadLetter) {
        return new InboxResult(Outcome.DEAD_LETTERED, eventId, detail, attempts, null, false, false, deadLetter);
    }

    static InboxResult settled(Outcome outcome, String eventId, String detail, int attempt) {
        return new InboxResult(outcome, eventId, detail, attempt, null, false, false, null);
    }
}
