package dev.txinbox.inbox;

/**
 * The inbox's verdict on one message.
 *
 * @param outcome the outcome; {@link Outcome#DEAD_LETTERED} and {@link Outcome#RETRIED} still need the
 *                transport to act before they are final
 * @param eventId the event id, when the body yielded one
 * @param detail  why (rejection reason, error, the conflicting hashes), or null
 * @param error   the exception behind a retry, or null
 */
public record InboxResult(Outcome outcome, String eventId, String detail, Throwable error) {

    static InboxResult of(Outcome outcome, String eventId, String detail) {
        return new InboxResult(outcome, eventId, detail, null);
    }
}
