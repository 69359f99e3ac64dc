package dev.txinbox.inbox;

import java.util.List;

/**
 * The business side of one consumer. Implement it as a CDI bean and the inbox finds it by
 * {@link #consumer()}; the inbox calls it inside the transaction that records the message, so
 * whatever it writes through the same datasource commits or rolls back with the inbox row.
 *
 * <p>The contract:
 * <ul>
 * <li>{@link #validate} throws {@link InvalidMessageException} for input that can never be applied
 * (unknown type, invalid payload). It runs before anything is recorded, also for events that will be
 * parked, so a parked event is known to be well-formed.</li>
 * <li>{@link #apply} decides first and writes second: it returns {@link HandlerResult#rejected} without
 * having changed anything, because a rejection commits (the inbox row records it).</li>
 * <li>Any other exception is transient: the batch's transaction rolls back, the batch runs again without the
 * message, and the message is retried.</li>
 * </ul>
 * A batch of messages shares one transaction and one persistence context, flushed once at the batch's end, so
 * a handler must not open, commit, roll back or suspend a transaction of its own ({@code REQUIRES_NEW},
 * {@code UserTransaction}), set or release savepoints, clear the {@code EntityManager}, or keep entities between
 * calls. Work outside the database is not rolled back with the message and runs again whenever the batch does:
 * keep it idempotent, or record it with the outbox. (docs/DESIGN.md, "What a handler may and may not do".)
 */
public interface InboxHandler {

    /** The consumer name: the inbox key space and the metrics tag. */
    String consumer();

    void validate(InboxEvent event);

    /**
     * Optional: loads, before the batch's first {@link #apply}, what the batch's events need, in as few queries
     * as possible (say, every entity they name, by id, in one query), so that each {@code apply} finds them in the
     * persistence context instead of asking the database once per event. Runs in the batch's transaction, with
     * the events valid and in receive order; duplicates among them are not applied later, and drained parked
     * events of the same streams are. Loading more or fewer than {@code apply} needs is harmless: it only moves
     * the queries. It must not write.
     */
    default void prefetch(List<InboxEvent> events) {
    }

    HandlerResult apply(InboxEvent event);
}
