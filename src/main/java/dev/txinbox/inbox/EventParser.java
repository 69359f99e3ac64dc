package dev.txinbox.inbox;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HexFormat;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.txinbox.config.TxinboxConfig;

/**
 * Turns a raw body into an {@link InboxEvent}, or says precisely why it cannot
 * ({@link InvalidMessageException}). Enforces CONTRACT §1 field by field.
 */
@ApplicationScoped
public class EventParser {

    public static final int MAX_EVENT_ID_LENGTH = 200;
    // Aggregate ids are keys of b-tree indexes (stream state, parked events, the domain's own tables), whose
    // entries PostgreSQL caps at ~2,700 bytes: 512 characters stay below it even at 4 bytes a character.
    public static final int MAX_AGGREGATE_ID_LENGTH = 512;
    static final int MAX_TYPE_LENGTH = 200;

    // Own mapper: strict on input (duplicate keys are ambiguous, so rejected) and canonical on output
    // (sorted keys) so that the payload hash ignores key order and white space.
    private final ObjectMapper mapper = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .nodeFactory(com.fasterxml.jackson.databind.node.JsonNodeFactory.withExactBigDecimals(true))
            .build();
    private final int maxBodyBytes;

    @Inject
    public EventParser(TxinboxConfig config) {
        this(config.inbox().maxBodyBytes());
    }

    public EventParser(int maxBodyBytes) {
        this.maxBodyBytes = maxBodyBytes;
    }

    public InboxEvent parse(String body, String eventIdAttribute) {
        if (body == null || body.isBlank()) {
            throw new InvalidMessageException("body is empty; expected a JSON object");
        }
        int bytes = body.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > maxBodyBytes) {
            throw new InvalidMessageException(
                    "body is " + bytes + " bytes, larger than the limit of " + maxBodyBytes + " bytes");
        }
        JsonNode root = readTree(body);
        if (root == null || !root.isObject()) {
            throw new InvalidMessageException("body must be a JSON object, got " + describe(root));
        }
        String eventId = eventId(root, eventIdAttribute);
        String type = checkId(requiredString(root, "type"), MAX_TYPE_LENGTH, "field 'type'");
        String aggregateId = optionalString(root, "aggregateId");
        if (aggregateId != null) {
            checkId(aggregateId, MAX_AGGREGATE_ID_LENGTH, "field 'aggregateId'");
        }
        Long sequence = sequence(root);
        if (sequence != null && aggregateId == null) {
            throw new InvalidMessageException("field 'aggregateId' is required when 'sequence' is set");
        }
        Instant occurredAt = occurredAt(root);
        ObjectNode payload = payload(root);
        return new InboxEvent(eventId, type, aggregateId, sequence, occurredAt, payload, hash(root), body);
    }

    /**
     * A best-effort event id for a body that failed validation, so the dead letter can be traced; null
     * when neither the body nor the attribute holds a usable one.
     */
    public String eventIdOf(String body, String eventIdAttribute) {
        try {
            JsonNode node = readTree(body).get("eventId");
            if (node != null && node.isTextual()) {
                return checkEventId(node.asText(), "field 'eventId'");
            }
        } catch (RuntimeException e) {
            // not JSON, or no usable id in it: fall through to the attribute
        }
        try {
            return eventIdAttribute == null ? null : checkEventId(eventIdAttribute.strip(), "attribute");
        } catch (InvalidMessageException e) {
            return null;
        }
    }

    /**
     * Reads the body, or says why not. Some of the reader's refusals (a nesting or length limit of
     * {@link com.fasterxml.jackson.core.StreamReadConstraints}) carry no location, and whatever the
     * reader throws is the body's fault: it must never look like a transient failure.
     */
    private JsonNode readTree(String body) {
        try {
            return mapper.readTree(body);
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? ""
                    : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
            throw new InvalidMessageException("body is not valid JSON: " + bounded(e.getOriginalMessage()) + where);
        } catch (RuntimeException e) {
            throw new InvalidMessageException("body could not be read as JSON: " + bounded(String.valueOf(e.getMessage())));
        }
    }

    private String eventId(JsonNode root, String attribute) {
        if (root.has("eventId")) {
            return checkEventId(requiredString(root, "eventId"), "field 'eventId'");
        }
        if (attribute != null) {
            return checkEventId(attribute.strip(), "message attribute 'event-id'");
        }
        throw new InvalidMessageException("field 'eventId' is missing (and no 'event-id' message attribute)");
    }

    private static String checkEventId(String id, String where) {
        return checkId(id, MAX_EVENT_ID_LENGTH, where);
    }

    private static String checkId(String id, int maxLength, String where) {
        if (id.isEmpty() || id.length() > maxLength) {
            throw new InvalidMessageException(where + " must be 1-" + maxLength + " characters, got " + id.length());
        }
        return noControlCharacters(id, where);
    }

    /**
     * Identifiers become keys and log lines; PostgreSQL refuses NUL in text outright. Refusing control
     * characters here names the problem instead of letting the database fail on it later.
     */
    private static String noControlCharacters(String value, String where) {
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                throw new InvalidMessageException(where + " must not contain control characters (found U+"
                        + String.format("%04X", (int) value.charAt(i)) + " at index " + i + ")");
            }
        }
        return value;
    }

    private static String requiredString(JsonNode root, String field) {
        JsonNode node = root.get(field);
        if (node == null || node.isNull()) {
            throw new InvalidMessageException("field '" + field + "' is missing");
        }
        if (!node.isTextual()) {
            throw new InvalidMessageException("field '" + field + "' must be a string, got " + describe(node));
        }
        if (node.asText().isBlank()) {
            throw new InvalidMessageException("field '" + field + "' must not be blank");
        }
        return node.asText();
    }

    private static String optionalString(JsonNode root, String field) {
        JsonNode node = root.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        return requiredString(root, field);
    }

    private static Long sequence(JsonNode root) {
        JsonNode node = root.get("sequence");
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong() || node.asLong() < 1) {
            throw new InvalidMessageException(
                    "field 'sequence' must be a positive 64-bit integer, got " + describe(node));
        }
        return node.asLong();
    }

    private static Instant occurredAt(JsonNode root) {
        String text = optionalString(root, "occurredAt");
        if (text == null) {
            return null;
        }
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new InvalidMessageException(
                    "field 'occurredAt' must be an ISO-8601 instant such as 2026-12-02T10:00:00Z, got "
                            + describe(root.get("occurredAt")));
        }
    }

    private ObjectNode payload(JsonNode root) {
        JsonNode node = root.get("payload");
        if (node == null || node.isNull()) {
            return mapper.createObjectNode();
        }
        if (!node.isObject()) {
            throw new InvalidMessageException("field 'payload' must be a JSON object, got " + describe(node));
        }
        return (ObjectNode) node;
    }

    private String hash(JsonNode root) {
        try {
            return sha256(mapper.writeValueAsBytes(mapper.treeToValue(root, Object.class)));
        } catch (JsonProcessingException | RuntimeException e) {
            throw new InvalidMessageException("body could not be put in canonical form for its hash: "
                    + bounded(String.valueOf(e.getMessage())));
        }
    }

    private static String bounded(String text) {
        return text.length() > 300 ? text.substring(0, 300) + "…" : text;
    }

    /** SHA-256 of a body as it came, for bodies that never parsed. */
    public static String rawHash(String body) {
        return sha256((body == null ? "" : body).getBytes(StandardCharsets.UTF_8));
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static String describe(JsonNode node) {
        if (node == null || node.isMissingNode()) {
            return "nothing";
        }
        String text = node.toString();
        String shown = text.length() > 60 ? text.substring(0, 60) + "…" : text;
        return node.getNodeType().name().toLowerCase() + " " + shown;
    }
}
