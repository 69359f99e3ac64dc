package dev.txinbox.support;

import java.util.UUID;

/** Message bodies as producers write them (CONTRACT §1). */
public final class Events {

    private Events() {
    }

    public static String unique(String prefix) {
        return prefix + "_" + UUID.randomUUID().toString().substring(0, 8);
    }

    public static String event(String eventId, String type, String aggregateId, Long sequence, String payload) {
        return "{\"eventId\":\"" + eventId + "\",\"type\":\"" + type + "\",\"aggregateId\":\"" + aggregateId + "\""
                + (sequence == null ? "" : ",\"sequence\":" + sequence)
                + ",\"occurredAt\":\"2026-12-02T10:00:00Z\",\"payload\":" + payload + "}";
    }

    public static String created(String eventId, String orderId, Long sequence, long amount) {
        return event(eventId, "ORDER_CREATED", orderId, sequence,
                "{\"customerId\":\"cus_1\",\"amount\":" + amount + ",\"currency\":\"EUR\"}");
    }

    public static String paid(String eventId, String orderId, Long sequence, long amount) {
        return event(eventId, "ORDER_PAID", orderId, sequence, "{\"amount\":" + amount + ",\"currency\":\"EUR\"}");
    }

    public static String shipped(String eventId, String orderId, Long sequence) {
        return event(eventId, "ORDER_SHIPPED", orderId, sequence, "{\"carrier\":\"DHL\",\"trackingNumber\":\"T1\"}");
    }

    public static String cancelled(String eventId, String orderId, Long sequence) {
        return event(eventId, "ORDER_CANCELLED", orderId, sequence, "{\"reason\":\"customer asked\"}");
    }

    /** An event of the test-only ledger consumer, whose payload scripts its behaviour (see LedgerConsumer). */
    public static String ledger(String eventId, String group, String payload) {
        return ledger(eventId, group, null, payload);
    }

    public static String ledger(String eventId, String group, Long sequence, String payload) {
        return "{\"eventId\":\"" + eventId + "\",\"type\":\"ENTRY\",\"aggregateId\":\"" + group + "\""
                + (sequence == null ? "" : ",\"sequence\":" + sequence) + ",\"payload\":" + payload + "}";
    }
}
