package dev.txinbox.messaging;

import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

import dev.txinbox.orders.OrderEventHandler;

/**
 * The incoming SQS channels, one method per consumer. A new consumer needs its {@code InboxHandler}
 * bean, its configuration ({@code mp.messaging.incoming.<name>.*}, {@code txinbox.consumers.<name>.*})
 * and one method here. The methods return at once: ordering and parallelism are the
 * {@link SqsInboxReceiver}'s, which pushes back when too much is in flight.
 */
@ApplicationScoped
public class InboxChannels {

    private final SqsInboxReceiver receiver;

    public InboxChannels(SqsInboxReceiver receiver) {
        this.receiver = receiver;
    }

    @Incoming(OrderEventHandler.CONSUMER)
    public CompletionStage<Void> orders(Message<String> message) {
        return receiver.accept(OrderEventHandler.CONSUMER, message);
    }
}
