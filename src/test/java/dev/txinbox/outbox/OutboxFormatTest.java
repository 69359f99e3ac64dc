package dev.txinbox.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.txinbox.inbox.EventParser;
import dev.txinbox.inbox.InboxEvent;
import dev.txinbox.outbox.OutboxPublisher.Message;

/** What the relay puts on the queue for an event, read back as the inbox downstream reads it. No broker. */
class OutboxFormatTest {

    private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    private final OutboxFormat format = new OutboxFormat(new ObjectMapper());

    private static Head head(String aggregateId, String payload, String spanContext) {
        return new Head(UUID.fromString("5b9d8f0e-3c1a-4a57-9a39-2f6f0b1f6a01"), "order", aggregateId, "OrderPaid",
                Instant.parse("2026-12-02T10:00:00.123Z"), payload, 3, 0, 7, spanContext);
    }

    @Test
    void theBodyIsAContractEventTheInboxDownstreamAccepts() {
        Head head = head("order-1", "{\"amount\": 7, \"items\": [1, 2]}", null);
        InboxEvent event = new EventParser(262_144).parse(format.body(head), null);
        assertEquals(head.id().toString(), event.eventId());
        assertEquals("OrderPaid", event.type());
        assertEquals("order-1", event.aggregateId());
        assertEquals(3L, event.sequence());
        assertEquals(head.timestamp(), event.occurredAt());
        assertEquals(7, event.payload().get("amount").asInt());
        assertEquals(2, event.payload().get("items").size());
    }

    @Test
    void thePayloadGoesInAsPostgresqlWroteIt() {
        String payload = "{\"amount\": 7, \"note\": \"caf\\u00e9\"}";
        assertTrue(format.body(head("order-1", payload, null)).contains("\"payload\":" + payload));
    }

    @Test
    void theAggregateIsTheGroupAndTheEventIdDeduplicates() {
        Message message = OutboxFormat.message("4", head("order-1", "{}", null), "{}");
        assertEquals("4", message.entryId());
        assertEquals("order-1", message.groupId());
        assertEquals("5b9d8f0e-3c1a-4a57-9a39-2f6f0b1f6a01", message.deduplicationId());
        assertEquals("{}", message.body());
    }

    @Test
    void theAttributesCarryTheEventsIdentityAndItsTraceWhenItHadOne() {
        assertEquals(Map.of("event-id", "5b9d8f0e-3c1a-4a57-9a39-2f6f0b1f6a01", "aggregate-type", "order",
                "event-type", "OrderPaid"), OutboxFormat.attributes(head("order-1", "{}", null)));
        Map<String, String> traced = OutboxFormat.attributes(head("order-1", "{}", "traceparent=" + TRACEPARENT));
        assertEquals(TRACEPARENT, traced.get("traceparent"));
    }

    @Test
    void anAggregateIdSqsTakesAsAGroupIdIsTheGroupId() {
        assertEquals("order-1", OutboxFormat.groupId("order-1"));
        String longest = "a".repeat(128);
        assertEquals(longest, OutboxFormat.groupId(longest));
        assertEquals("!~{}", OutboxFormat.groupId("!~{}"), "every printable ASCII character");
    }

    @Test
    void anAggregateIdSqsWouldRefuseIsSentInAGroupOfItsHash() {
        for (String refused : new String[] { "a".repeat(129), "caf\u00e9", "with space", "tab\t" }) {
            String group = OutboxFormat.groupId(refused);
            assertTrue(group.matches("sha256-[0-9a-f]{64}"), group);
            assertEquals(group, OutboxFormat.groupId(refused), "the same group every time: the aggregate stays in order");
        }
        assertNotEquals(OutboxFormat.groupId("caf\u00e9"), OutboxFormat.groupId("caf\u00e8"));
    }

    @Test
    void theBodyKeepsTheAggregateIdItselfWhenTheGroupIsItsHash() {
        String aggregate = "x".repeat(300);
        String body = format.body(head(aggregate, "{}", null));
        assertTrue(body.contains("\"aggregateId\":\"" + aggregate + "\""));
        assertFalse(body.contains("sha256-"));
    }
}
