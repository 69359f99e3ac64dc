package dev.txinbox.messaging.sqs;

import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;


/**
 * The incoming SQS channels, one method per consumer. A new consumer needs its {@code InboxHandler}
 * bean, its configuration ({@code mp.messaging.incoming.<name>.*}, {@code txinbox.consumers.<name>.*})
 * and one method here; the start-up check refuses a channel whose consumer has no handler. The name is
 * spelled here rather than taken from the handler, so that the transport does not depend on the domain. The methods return at once: ordering and parallelism are the
 * {@link SqsInboxReceiver}'s, which pushes back when too much is in flight.
 */
@ApplicationScoped
public class InboxChannels {

    /** The channel of the shipped orders consumer; its handler names the same consumer. */
    static final String ORDERS = "orders";

    /** The channel of the notifications consumer, downstream of the orders' outbox; switched off by default. */
    static final String NOTIFICATIONS = "notifications";

    private final SqsInboxReceiver receiver;

    public InboxChannels(SqsInboxReceiver receiver) {
        this.receiver = receiver;
    }

    @Incoming(ORDERS)
    public CompletionStage<Void> orders(Message<String> message) {
        return receiver.accept(ORDERS, message);
    }

    @Incoming(NOTIFICATIONS)
    public CompletionStage<Void> notifications(Message<String> message) {
        return receiver.accept(NOTIFICATIONS, message);
    }
}
