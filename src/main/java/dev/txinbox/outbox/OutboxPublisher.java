package dev.txinbox.outbox;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Sends outbox messages to a FIFO queue (implemented where the broker is known: {@code messaging}). One call is one
 * {@code SendMessageBatch}: at most ten messages, of distinct groups.
 */
public interface OutboxPublisher {

    /** One message: {@code entryId} names it in the answer. */
    record Message(String entryId, String groupId, String deduplicationId, String body,
            Map<String, String> attributes) {
    }

    /** The entries the broker refused, with why; {@code senderFault}: the message itself is at fault. */
    record Refusal(String entryId, String reason, boolean senderFault) {
    }

    /**
     * Sends the messages without waiting for the broker: the relay keeps several calls in flight. The answer is
     * the entries refused one by one (all others were accepted); it completes exceptionally with a
     * {@link PublishException} when the call as a whole failed.
     *
     * @throws PublishException when the call could not even be made (the queue's URL is unknown)
     */
    CompletableFuture<List<Refusal>> send(String queue, List<Message> messages);

    /**
     * Asks the broker whether the queue can be used, sending nothing: how a relay with nothing to send learns that
     * an outage or a missing queue is over.
     *
     * @throws PublishException when it cannot
     */
    void probe(String queue);

    /** Why a whole call failed, each with its own handling (see {@link OutboxRelay}). */
    enum Failure {
        /** The broker is down, throttles or times out: back off; no message is at fault. */
        UNAVAILABLE,
        /** The broker cannot be called for want of usable credentials: back off as for an outage; say why. */
        CREDENTIALS,
        /** The queue is missing or access is denied: nothing can be sent until an operator acts. */
        CONFIGURATION,
        /** The broker refused the request as such (too long, invalid): one of its messages is at fault. */
        REQUEST_REFUSED
    }

    final class PublishException extends RuntimeException {

        private final Failure failure;

        public PublishException(Failure failure, String message, Throwable cause) {
            super(message, cause);
            this.failure = failure;
        }

        public Failure failure() {
            return failure;
        }
    }
}
