package dev.txinbox.outbox;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;

import dev.txinbox.outbox.OutboxPublisher.Message;

/**
 * What the relay puts on the queue for an event: CONTRACT §1's body, so that a txinbox consumer downstream consumes
 * it as it is, the message group and deduplication id that keep each aggregate in order and each event once, and
 * the attributes that carry the event's identity and its trace.
 */
final class OutboxFormat {

    /** What SQS takes as a MessageGroupId. */
    private static final Pattern GROUP_ID = Pattern.compile("[\\x21-\\x7e]{1,128}");

    private final ObjectMapper mapper;

    OutboxFormat(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /** The payload goes in as PostgreSQL wrote it: jsonb's text is JSON already, so it is not parsed and written again. */
    String body(Head head) {
        ObjectNode body = mapper.createObjectNode();
        body.put("eventId", head.id().toString());
        body.put("type", head.type());
        body.put("aggregateId", head.aggregateId());
        body.put("sequence", head.sequence());
        body.put("occurredAt", head.timestamp().toString());
        body.putRawValue("payload", new RawValue(head.payload()));
        try {
            return mapper.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("outbox event " + head.id() + " could not be written", e);
        }
    }

    /** The entry {@code entryId} of a call: the event's id deduplicates it, its aggregate's group orders it. */
    static Message message(String entryId, Head head, String body) {
        return new Message(entryId, groupId(head.aggregateId()), head.id().toString(), body, attributes(head));
    }

    /**
     * The message group of an aggregate: its id, unless SQS would refuse that as a group id (more than 128
     * characters, or characters other than printable ASCII); then a hash of it, which keeps the aggregate's events
     * in one group, in order. The body's {@code aggregateId} is always the id itself.
     */
    static String groupId(String aggregateId) {
        if (GROUP_ID.matcher(aggregateId).matches()) {
            return aggregateId;
        }
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(aggregateId.getBytes(StandardCharsets.UTF_8));
            return "sha256-" + HexFormat.of().formatHex(hash);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The message attributes: the event's identity, and the recording trace's context when it had one. */
    static Map<String, String> attributes(Head head) {
        String traceparent = Outbox.traceparentOf(head.spanContext());
        return traceparent == null
                ? Map.of("event-id", head.id().toString(), "aggregate-type", head.aggregateType(), "event-type",
                        head.type())
                : Map.of("event-id", head.id().toString(), "aggregate-type", head.aggregateType(), "event-type",
                        head.type(), "traceparent", traceparent);
    }
}
