package dev.txinbox.notifications;

import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;

import dev.txinbox.inbox.HandlerResult;
import dev.txinbox.inbox.InboxEvent;
import dev.txinbox.inbox.InboxHandler;
import dev.txinbox.inbox.InvalidMessageException;

/**
 * A service downstream of the orders: it reads what the orders' outbox published (CONTRACT §6) through an inbox of
 * its own, and keeps the notification each event gives the customer in {@code order_notifications}. It is what a
 * team's own downstream service would be, run in the same process so that the whole chain (order change and outbox
 * event, relay, queue, inbox again) runs and is checked as one: by the demo, {@code ChainedOutboxTest} and the
 * chaos suite. Switched off by default ({@code TXINBOX_NOTIFICATIONS_ENABLED}): a queue hands each message to one
 * consumer, and this one would take the events from the services they are meant for.
 */
@ApplicationScoped
public class OrderNotifications implements InboxHandler {

    public static final String CONSUMER = "notifications";
    private static final Set<String> TYPES = Set.of("OrderAccepted", "OrderPaid", "OrderShipped", "OrderCancelled");

    private final EntityManager entityManager;

    public OrderNotifications(EntityManager entityManager) {
        this.entityManager = entityManager;
    }

    @Override
    public String consumer() {
        return CONSUMER;
    }

    @Override
    public void validate(InboxEvent event) {
        if (!TYPES.contains(event.type())) {
            throw new InvalidMessageException("unknown event type '" + event.type() + "' for consumer " + CONSUMER);
        }
        // The sequence puts a late "paid" after "accepted"; the cause ties each notification to the order event
        // that caused it, upstream.
        if (event.sequence() == null || !event.payload().hasNonNull("causedBy")) {
            throw new InvalidMessageException("an order event needs its sequence and payload.causedBy");
        }
    }

    @Override
    public HandlerResult apply(InboxEvent event) {
        entityManager.createNativeQuery("insert into order_notifications (event_id, order_id, sequence_no, type,"
                + " caused_by) values (?1, ?2, ?3, ?4, ?5)")
                .setParameter(1, event.eventId())
                .setParameter(2, event.aggregateId())
                .setParameter(3, event.sequence())
                .setParameter(4, event.type())
                .setParameter(5, event.payload().get("causedBy").asText())
                .executeUpdate();
        return HandlerResult.success();
    }
}
