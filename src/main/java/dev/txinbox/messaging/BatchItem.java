package dev.txinbox.messaging;

import dev.txinbox.inbox.InboxResult;
import dev.txinbox.inbox.Outcome;

/**
 * One message of a worker's batch, from the worker's check to its settled outcome: what the processor, the tracing
 * and the settlement each add to it, kept together rather than in lists aligned by index.
 */
final class BatchItem {

    final Delivery delivery;
    /** Its span, from when the batch's spans start. */
    MessageSpan traced;
    /** Set before the inbox when it is held back behind its group; otherwise the inbox's. */
    InboxResult result;
    /** What settling the result made of it (a dead letter whose copy failed is retried). */
    Outcome outcome;

    BatchItem(Delivery delivery) {
        this.delivery = delivery;
    }
}
