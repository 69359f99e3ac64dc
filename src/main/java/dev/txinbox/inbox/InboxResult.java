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
 */
public record InboxResult(Outcome outcome, String eventId, String detail, int attempts, Duration retryDelay,
        boolean outage) {

    static InboxResult of(Outcome outcome, String eventId, String detail) {
        return new InboxResult(outcome, eventId, detail, 0, null, false);
    }

    static InboxResult retry(String eventId, String error, int attempts, Duration delay) {
        return new InboxResult(Outcome.RETRIED, eventId, error, attempts, delay, false);
    }

    static InboxResult outage(String eventId, String error, Duration delay) {
        return new InboxResult(Outcome.RETRIED, eventId, error, 0, delay, true);
    }
}
