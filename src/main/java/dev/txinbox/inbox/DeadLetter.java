package dev.txinbox.inbox;

import io.quarkus.narayana.jta.QuarkusTransaction;

/**
 * The inbox's half of a message it gave up on: why, and the DEAD row to write once the transport has put the
 * message's copy in the dead-letter queue. Made where the inbox decided, from what it parsed then (nothing when
 * the body never parsed), so that recording it reads the body no second time and asks nothing of {@link Inbox}.
 */
public final class DeadLetter {

    private final InboxFailures failures;
    private final IncomingMessage message;
    /** The event id, or a stand-in for a body without one, so that every dead letter has its row. */
    private final String recordId;
    /** Null when the body never parsed. */
    private final InboxEvent event;
    private final String reason;
    private final String error;

    DeadLetter(InboxFailures failures, IncomingMessage message, InboxEvent event, String eventId, String reason,
            String error) {
        this.failures = failures;
        this.message = message;
        this.event = event;
        this.recordId = eventId != null ? eventId
                : "unparsed:" + (message.source().messageId() != null ? message.source().messageId()
                        : EventParser.rawHash(message.body()));
        this.reason = reason;
        this.error = error;
    }

    /** Invalid at once, or a transient failure that used its last attempt. */
    static DeadLetter of(InboxFailures failures, IncomingMessage message, InboxEvent event, String eventId,
            String error, int attempts) {
        return new DeadLetter(failures, message, event, eventId,
                attempts > 0 ? "gave up after " + attempts + " attempts" : "invalid message", error);
    }

    /** The same message failing again when an operator replays it: its copy is in the dead-letter queue already. */
    DeadLetter replayed() {
        return new DeadLetter(failures, message, event, recordId, "replay", error);
    }

    /** Why, in a few words: {@code invalid message} or {@code gave up after N attempts}. */
    public String reason() {
        return reason;
    }

    /**
     * Records the message as DEAD with its reason and error, in a transaction of its own; a live row with the same id
     * (a valid copy already processed) is left as it is. Call only once the copy is safe elsewhere.
     */
    public void record() {
        QuarkusTransaction.requiringNew()
                .run(() -> failures.recordDead(message, recordId, event, reason + ": " + error));
    }
}
