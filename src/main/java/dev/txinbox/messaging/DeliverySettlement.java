package dev.txinbox.messaging;

import java.time.Duration;
import java.util.List;

/**
 * What the pipeline asks of the transport to settle its deliveries, implemented by the adapter
 * ({@code messaging.sqs.SettlementCalls}). What each outcome leads to is {@link Settlement}'s; how a delivery is
 * deleted, released or copied is the adapter's. Deliveries handed here are those the adapter made.
 */
public interface DeliverySettlement {

    /** What the transport answered to one delete or release call; told on the transport's thread, never thrown. */
    interface Reply {

        /** The transport answered the call for {@code messages} messages (some may be refused, each told apart). */
        void answered(int messages);

        /** The transport refused {@code delivery}'s part (or the whole call) for good: it comes back after its visibility timeout. */
        void refused(Delivery delivery, String why);

        /** The transport refused {@code messages} of the call, in {@code queue}, for a reason that passes, and tries again. */
        void retrying(String queue, int messages, String why);
    }

    /**
     * A worker begins these deliveries' batch: from here on they are settled through this port, and the stop no
     * longer hands them back as received and not processed.
     */
    void begin(List<? extends Delivery> batch);

    /**
     * Deletes the deliveries' messages, not waiting for the answer; a delete refused for a reason that passes is
     * tried again while it keeps its message invisible for {@code visibilityTimeout} (the queue's) at a time.
     */
    void delete(List<Delivery> deliveries, Duration visibilityTimeout, Reply reply);

    /** Makes the deliveries' messages visible again after {@code delay}, not waiting for the answer. */
    void release(List<Delivery> deliveries, Duration delay, Reply reply);

    /**
     * Copies a delivery's message to {@code deadLetterQueue} with the reason. Waits for the transport and throws if it
     * did not take the copy, so that the original stays where it is.
     */
    void copyToDeadLetterQueue(String deadLetterQueue, String consumer, Delivery delivery, String reason, String error,
            int attempts);
}
