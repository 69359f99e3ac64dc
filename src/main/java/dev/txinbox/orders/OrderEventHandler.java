package dev.txinbox.orders;

import java.time.Instant;
import java.util.Currency;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.TransactionSynchronizationRegistry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.txinbox.inbox.HandlerResult;
import dev.txinbox.inbox.InboxEvent;
import dev.txinbox.inbox.InboxHandler;
import dev.txinbox.inbox.InvalidMessageException;
import dev.txinbox.outbox.Outbox;

/**
 * The orders domain (CONTRACT §1): applies order events to {@code orders} and {@code payment_audit}.
 * Every check comes before the first write, as {@link InboxHandler} requires.
 */
@ApplicationScoped
public class OrderEventHandler implements InboxHandler {

    public static final String CONSUMER = "orders";

    static final String CREATED = "ORDER_CREATED";
    static final String PAID = "ORDER_PAID";
    static final String SHIPPED = "ORDER_SHIPPED";
    static final String CANCELLED = "ORDER_CANCELLED";
    private static final Set<String> TYPES = Set.of(CREATED, PAID, SHIPPED, CANCELLED);
    /** The transaction's resource holding the ids {@link #prefetch} found no order for. */
    private static final String ABSENT = OrderEventHandler.class.getName() + ".absent";

    /** The aggregate type of the downstream events (Debezium's router routes by it). */
    static final String AGGREGATE_TYPE = "order";

    private final TransactionSynchronizationRegistry transaction;
    private final Outbox outbox;

    public OrderEventHandler(TransactionSynchronizationRegistry transaction, Outbox outbox) {
        this.transaction = transaction;
        this.outbox = outbox;
    }

    @Override
    public String consumer() {
        return CONSUMER;
    }

    @Override
    public void validate(InboxEvent event) {
        if (!TYPES.contains(event.type())) {
            throw new InvalidMessageException("unknown event type '" + event.type() + "' for consumer " + CONSUMER
                    + "; known types: " + String.join(", ", TYPES.stream().sorted().toList()));
        }
        if (event.aggregateId() == null) {
            throw new InvalidMessageException("field 'aggregateId' (the order id) is required for " + event.type());
        }
        JsonNode payload = event.payload();
        switch (event.type()) {
            case CREATED -> {
                requiredText(payload, "customerId");
                positiveAmount(payload);
                currency(payload);
            }
            case PAID -> {
                positiveAmount(payload);
                currency(payload);
            }
            case SHIPPED -> {
                optionalText(payload, "carrier");
                optionalText(payload, "trackingNumber");
            }
            case CANCELLED -> optionalText(payload, "reason");
            default -> throw new IllegalStateException(event.type());
        }
    }

    /**
     * Every order of the batch in one query ({@code findMultiple}: one {@code id = any(?)} select, no query to
     * translate): each {@link #apply} then finds its order in the persistence context. The ids found absent are
     * kept for the transaction, so that an ORDER_CREATED does not ask again.
     */
    @Override
    public void prefetch(List<InboxEvent> events) {
        List<String> ids = events.stream().map(InboxEvent::aggregateId).filter(Objects::nonNull).distinct().toList();
        if (ids.isEmpty()) {
            return;
        }
        Set<String> absent = new HashSet<>(ids);
        for (Order order : Order.getSession().findMultiple(Order.class, ids)) {
            if (order != null) {
                absent.remove(order.id);
            }
        }
        transaction.putResource(ABSENT, absent);
    }

    @Override
    public HandlerResult apply(InboxEvent event) {
        Order order = find(event.aggregateId());
        Instant at = event.occurredAt() != null ? event.occurredAt() : Instant.now();
        if (CREATED.equals(event.type())) {
            return order != null ? HandlerResult.rejected("order " + event.aggregateId() + " already exists")
                    : create(event, at);
        }
        if (order == null) {
            return HandlerResult.rejected(event.type() + " for order " + event.aggregateId() + ", which does not exist");
        }
        OrderStatus next = switch (event.type()) {
            case PAID -> OrderStatus.PAID;
            case SHIPPED -> OrderStatus.SHIPPED;
            case CANCELLED -> OrderStatus.CANCELLED;
            default -> throw new IllegalStateException(event.type());
        };
        if (!order.status.canBecome(next)) {
            return HandlerResult.rejected(event.type() + " is not allowed for order " + order.id + " in status "
                    + order.status);
        }
        JsonNode payload = event.payload();
        switch (next) {
            case PAID -> {
                String currency = payload.get("currency").asText();
                if (!currency.equals(order.currency)) {
                    return HandlerResult.rejected("payment in " + currency + " for order " + order.id + " in "
                            + order.currency);
                }
                order.paidAmount = payload.get("amount").asLong();
                order.paidAt = at;
                PaymentAudit audit = new PaymentAudit();
                audit.order = order;
                audit.messageId = event.eventId();
                audit.amount = order.paidAmount;
                audit.currency = currency;
                audit.payload = payload.toString();
                audit.createdAt = Instant.now();
                audit.persist();
            }
            case SHIPPED -> {
                order.carrier = optionalText(payload, "carrier");
                order.trackingNumber = optionalText(payload, "trackingNumber");
                order.shippedAt = at;
            }
            case CANCELLED -> {
                order.cancelReason = optionalText(payload, "reason");
                order.cancelledAt = at;
            }
            default -> throw new IllegalStateException(next.name());
        }
        order.status = next;
        order.updatedAt = Instant.now();
        published(order, event);
        return HandlerResult.success();
    }

    /**
     * Tells the services downstream what the order became, in this transaction: the event goes out if and only if
     * the change commits, once, whatever reruns the batch.
     */
    private void published(Order order, InboxEvent event) {
        String type = switch (order.status) {
            case CREATED -> "OrderAccepted";
            case PAID -> "OrderPaid";
            case SHIPPED -> "OrderShipped";
            case CANCELLED -> "OrderCancelled";
        };
        ObjectNode payload = JsonNodeFactory.instance.objectNode();
        payload.put("orderId", order.id);
        payload.put("status", order.status.name());
        payload.put("customerId", order.customerId);
        payload.put("amount", order.amount);
        payload.put("currency", order.currency);
        switch (order.status) {
            case PAID -> payload.put("paidAmount", order.paidAmount);
            case SHIPPED -> payload.put("carrier", order.carrier).put("trackingNumber", order.trackingNumber);
            case CANCELLED -> payload.put("reason", order.cancelReason);
            default -> {
            }
        }
        payload.put("causedBy", event.eventId());
        outbox.record(AGGREGATE_TYPE, order.id, type, payload);
    }

    private Order find(String id) {
        return absent().contains(id) ? null : Order.findById(id);
    }

    /** What {@link #prefetch} found missing in this transaction; nothing when it did not run. */
    private Set<String> absent() {
        @SuppressWarnings("unchecked")
        Set<String> absent = (Set<String>) transaction.getResource(ABSENT);
        return absent != null ? absent : new HashSet<>();
    }

    private HandlerResult create(InboxEvent event, Instant at) {
        JsonNode payload = event.payload();
        Order order = new Order();
        order.id = event.aggregateId();
        order.customerId = payload.get("customerId").asText();
        order.amount = payload.get("amount").asLong();
        order.currency = payload.get("currency").asText();
        order.status = OrderStatus.CREATED;
        order.createdAt = at;
        order.updatedAt = Instant.now();
        order.persist();
        absent().remove(order.id);
        published(order, event);
        return HandlerResult.success();
    }

    private static String requiredText(JsonNode payload, String field) {
        String value = optionalText(payload, field);
        if (value == null || value.isBlank()) {
            throw new InvalidMessageException("field 'payload." + field + "' is required");
        }
        return value;
    }

    private static String optionalText(JsonNode payload, String field) {
        JsonNode node = payload.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isTextual()) {
            throw new InvalidMessageException("field 'payload." + field + "' must be a string, got " + node);
        }
        return node.asText();
    }

    private static void positiveAmount(JsonNode payload) {
        JsonNode node = payload.get("amount");
        if (node == null || node.isNull()) {
            throw new InvalidMessageException("field 'payload.amount' is required (a positive integer in minor units)");
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong() || node.asLong() <= 0) {
            throw new InvalidMessageException(
                    "field 'payload.amount' must be a positive integer in minor units, got " + node);
        }
    }

    private static void currency(JsonNode payload) {
        String code = requiredText(payload, "currency");
        try {
            if (code.length() == 3 && Currency.getInstance(code) != null) {
                return;
            }
        } catch (IllegalArgumentException e) {
            // falls through to the error below
        }
        throw new InvalidMessageException("field 'payload.currency' must be an ISO-4217 code such as EUR, got '"
                + code + "'");
    }
}
