package dev.txinbox.inbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/** The envelope rules of CONTRACT §1, and what every malformed body is told. No Quarkus, no database. */
class EventParserTest {

    private final EventParser parser = new EventParser(1024);

    private InvalidMessageException refused(String body) {
        return assertThrows(InvalidMessageException.class, () -> parser.parse(body, null));
    }

    @Test
    void aWellFormedEventIsReadFieldByField() {
        InboxEvent event = parser.parse("{\"eventId\":\"e1\",\"type\":\"T\",\"aggregateId\":\"a\",\"sequence\":3,"
                + "\"occurredAt\":\"2026-12-02T10:00:00Z\",\"payload\":{\"x\":1}}", null);
        assertEquals("e1", event.eventId());
        assertEquals("T", event.type());
        assertEquals("a", event.aggregateId());
        assertEquals(3L, event.sequence());
        assertTrue(event.ordered());
        assertEquals(1, event.payload().get("x").asInt());
    }

    /**
     * The hash is SHA-256 of the body converted to maps and lists and written back with sorted keys, and recorded hashes
     * were made so: a redelivery of an event recorded by an earlier release must hash the same, or it would look like
     * a conflicting re-send. A change of the parser's mapper that alters the form fails here, on bodies with what it
     * could change: nesting, arrays of objects, exponents, trailing zeros, integers past a long, escapes and
     * characters outside ASCII.
     */
    @Test
    void theHashKeepsTheFormRecordedHashesWereMadeIn() throws Exception {
        ObjectMapper before = JsonMapper.builder()
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
                .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
                .build();
        List<String> bodies = List.of(
                "{\"eventId\":\"e\",\"type\":\"T\"}",
                "{\"type\":\"T\",\"eventId\":\"e\",\"payload\":{\"z\":[{\"b\":1,\"a\":[]},{}],\"a\":{\"y\":null,\"x\":true}}}",
                "{\"eventId\":\"e\",\"type\":\"T\",\"payload\":{\"n\":[1.50,-0.0,1E+3,1e-7,12345678901234567890123,"
                        + "-9223372036854775808,2147483648,0.1,3.14159265358979323846264338327950288,false]}}",
                "{\"eventId\":\"e\",\"type\":\"T\",\"payload\":{\"s\":\"quote \\\" backslash \\\\ tab \\t nl \\n"
                        + " \\u0001 \\u2028 é 🙂 </script>\",\"é\":1,\"E\":2,\"e\":3,\"\":4}}",
                "{\"eventId\":\"e\",\"type\":\"T\",\"aggregateId\":\"a\",\"sequence\":7,"
                        + "\"occurredAt\":\"2026-12-05T10:00:00Z\",\"payload\":{\"amount\":\"10.00\",\"nested\":[[1,[2,[3]]]]}}");
        for (String body : bodies) {
            byte[] canonical = before.writeValueAsBytes(before.treeToValue(before.readTree(body), Object.class));
            String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(canonical));
            assertEquals(expected, parser.parse(body, null).payloadHash(), body);
        }
    }

    @Test
    void theHashIgnoresKeyOrderAndWhiteSpaceButNotValues() {
        String a = parser.parse("{\"eventId\":\"e\",\"type\":\"T\",\"payload\":{\"b\":1,\"a\":2}}", null).payloadHash();
        String b = parser.parse("{ \"payload\" : {\"a\":2, \"b\":1}, \"type\":\"T\", \"eventId\":\"e\" }", null).payloadHash();
        String c = parser.parse("{\"eventId\":\"e\",\"type\":\"T\",\"payload\":{\"b\":1,\"a\":3}}", null).payloadHash();
        assertEquals(a, b);
        assertNotEquals(a, c);
    }

    @Test
    void theBodyWinsOverTheAttributeAndTheAttributeServesWhenTheBodyHasNone() {
        assertEquals("body", parser.parse("{\"eventId\":\"body\",\"type\":\"T\"}", "attr").eventId());
        assertEquals("attr", parser.parse("{\"type\":\"T\"}", " attr ").eventId());
    }

    @Test
    void idsLongerThanTheirIndexesCanHoldAreRefusedWithTheirLimit() {
        EventParser roomy = new EventParser(1_000_000);
        String longAggregate = "a".repeat(EventParser.MAX_AGGREGATE_ID_LENGTH + 1);
        assertEquals("field 'aggregateId' must be 1-512 characters, got 513", assertThrows(InvalidMessageException.class,
                () -> roomy.parse("{\"eventId\":\"e\",\"type\":\"T\",\"aggregateId\":\"" + longAggregate + "\"}", null))
                .getMessage());
        assertEquals("field 'type' must be 1-200 characters, got 201", assertThrows(InvalidMessageException.class,
                () -> roomy.parse("{\"eventId\":\"e\",\"type\":\"" + "T".repeat(201) + "\"}", null)).getMessage());
        String atTheLimit = "\u00e9".repeat(EventParser.MAX_AGGREGATE_ID_LENGTH);
        assertEquals(atTheLimit, roomy.parse("{\"eventId\":\"e\",\"type\":\"T\",\"aggregateId\":\"" + atTheLimit + "\"}",
                null).aggregateId());
    }

    @Test
    void nestingBeyondTheReadersLimitIsNamedNotThrownAsABug() {
        String deep = "{\"eventId\":\"e\",\"type\":\"T\",\"payload\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}";
        InvalidMessageException e = assertThrows(InvalidMessageException.class,
                () -> new EventParser(1_000_000).parse(deep, null));
        assertTrue(e.getMessage().contains("nesting depth"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = { "{\"eventId\":\"e\\u0000\",\"type\":\"T\"}", "{\"eventId\":\"e\",\"type\":\"T\\n\"}",
            "{\"eventId\":\"e\",\"type\":\"T\",\"aggregateId\":\"a\\u0007\"}",
            "{\"eventId\":\"e\",\"type\":\"T\",\"aggregateId\":\"o\\u0000\"}" })
    void controlCharactersInIdentifiersAreRefusedByName(String body) {
        assertTrue(refused(body).getMessage().contains("must not contain control characters"));
    }

    @Test
    void aControlCharacterInTheAttributeIsRefusedToo() {
        InvalidMessageException e = assertThrows(InvalidMessageException.class,
                () -> parser.parse("{\"type\":\"T\"}", "id\u0000"));
        assertTrue(e.getMessage().contains("message attribute 'event-id' must not contain control characters"));
    }

    @Test
    void eachBrokenFieldIsNamed() {
        assertTrue(refused("").getMessage().contains("body is empty"));
        assertTrue(refused("[1]").getMessage().contains("body must be a JSON object, got array"));
        assertTrue(refused("{\"eventId\":\"e\"").getMessage().contains("body is not valid JSON"));
        assertTrue(refused("{\"eventId\": \"e\", oops").getMessage().contains("body is not valid JSON"));
        assertTrue(refused("{\"eventId\":\"e\",\"eventId\":\"f\",\"type\":\"T\"}").getMessage().contains("Duplicate field"));
        assertTrue(refused("{\"type\":\"T\"}").getMessage().contains("field 'eventId' is missing"));
        assertTrue(refused("{\"eventId\":7,\"type\":\"T\"}").getMessage().contains("field 'eventId' must be a string"));
        assertTrue(refused("{\"eventId\":\"" + "x".repeat(201) + "\",\"type\":\"T\"}").getMessage()
                .contains("must be 1-200 characters, got 201"));
        assertTrue(refused("{\"eventId\":\"e\",\"type\":\" \"}").getMessage().contains("field 'type' must not be blank"));
        assertTrue(refused("{\"eventId\":\"e\",\"type\":\"T\",\"sequence\":2}").getMessage()
                .contains("'aggregateId' is required when 'sequence' is set"));
        assertTrue(refused("{\"eventId\":\"e\",\"type\":\"T\",\"payload\":[]}").getMessage()
                .contains("field 'payload' must be a JSON object"));
        assertTrue(refused("{\"eventId\":\"e\",\"type\":\"T\",\"occurredAt\":\"yesterday\"}").getMessage()
                .contains("field 'occurredAt' must be an ISO-8601 instant"));
        assertTrue(refused("{\"eventId\":\"" + "e".repeat(1100) + "\"}").getMessage().contains("larger than the limit of 1024 bytes"));
    }

    @ParameterizedTest
    @ValueSource(strings = { "0", "-1", "1.5", "1e400", "1180591620717411303424", "\"3\"", "\"two\"", "true" })
    void sequencesOtherThanPositive64BitIntegersAreRefused(String sequence) {
        assertTrue(refused("{\"eventId\":\"e\",\"type\":\"T\",\"aggregateId\":\"a\",\"sequence\":" + sequence + "}")
                .getMessage().contains("field 'sequence' must be a positive 64-bit integer"));
    }

    @Test
    void theBestEffortIdOfABrokenBodyIsOnlyEverAUsableOne() {
        assertEquals("e", parser.eventIdOf("{\"eventId\":\"e\",\"type\":7}", null));
        assertEquals("attr", parser.eventIdOf("not json", "attr"));
        assertNull(parser.eventIdOf("{\"eventId\":\"e\\u0000\"}", null));
        assertNull(parser.eventIdOf("not json", "a\u0000"));
        assertNull(parser.eventIdOf("[" .repeat(5000), null));
    }
}
