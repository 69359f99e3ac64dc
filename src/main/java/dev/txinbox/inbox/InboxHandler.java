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
 * <li>Any other exception is transient: the whole transaction rolls back and the message is retried.</li>
 * </ul>
 */
public interface InboxHandler {

    /** The consumer name: the inbox key space and the metrics tag. */
    String consumer();

    void validate(InboxEvent event);

    HandlerResult apply(InboxEvent event);
}
