package dev.txinbox.inbox;

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
 * <li>Any other exception is transient: the message's work rolls back (to its savepoint; the rest of
 * its batch commits) and the message is retried.</li>
 * </ul>
 * A batch of messages shares one transaction and one persistence context, so a handler must not open,
 * commit, roll back or suspend a transaction of its own ({@code REQUIRES_NEW}, {@code UserTransaction}),
 * set or release savepoints, clear the {@code EntityManager}, or keep entities between calls. Work outside
 * the database is not rolled back with the message and may run again if the batch is rerun: keep it
 * idempotent. (docs/DESIGN.md, "What a handler may and may not do".)
 */
public interface InboxHandler {

    /** The consumer name: the inbox key space and the metrics tag. */
    String consumer();

    void validate(InboxEvent event);

    HandlerResult apply(InboxEvent event);
}
