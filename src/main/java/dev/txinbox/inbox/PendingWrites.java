package dev.txinbox.inbox;

/**
 * Writes that a bean holds back until its transaction flushes, as Hibernate does with entities, so that a batch's
 * share of them reaches the database in a statement or two instead of one per call (the outbox's events, say).
 * The inbox flushes every such bean right after the persistence context: once at a batch's end, or after each
 * handler call while it locates a failure, so that a failing write is blamed on the message that made it. A bean
 * must still flush itself before a commit that no inbox drives (a JTA synchronization does it).
 */
public interface PendingWrites {

    /** Writes what the current transaction holds back; nothing when it holds nothing. */
    void flush();
}
