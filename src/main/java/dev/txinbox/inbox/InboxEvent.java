package dev.txinbox.inbox;

import java.time.Instant;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A validated event envelope (CONTRACT §1).
 *
 * @param eventId     the deduplication key
 * @param type        the event type; the handler decides which it knows
 * @param aggregateId the stream it belongs to; required when {@code sequence} is set
 * @param sequence    position in the aggregate's stream, from 1; null for unordered events
 * @param occurredAt  when it happened, if the producer said
 * @param payload     the type-specific payload (an empty object when absent)
 * @param payloadHash hash of the canonical body: tells a redelivery from a conflicting re-send
 * @param body        the body as received, kept for parking and replay
 */
public record InboxEvent(String eventId, String type, String aggregateId, Long sequence, Instant occurredAt,
        ObjectNode payload, String payloadHash, String body) {

    public boolean ordered() {
        return sequence != null;
    }
}
