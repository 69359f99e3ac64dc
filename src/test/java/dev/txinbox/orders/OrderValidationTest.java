package dev.txinbox.orders;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import dev.txinbox.inbox.EventParser;
import dev.txinbox.inbox.InvalidMessageException;

/**
 * What the orders handler refuses before it writes anything, and what each refusal says: the handler's half of
 * classifying malformed input (the envelope's half is EventParserTest's). No Quarkus, no database.
 */
class OrderValidationTest {

    // validate() reads only the event: no transaction, no outbox.
    private final OrderEventHandler handler = new OrderEventHandler(null, null);
    private final EventParser parser = new EventParser(32_768);

    private void valid(String body) {
        assertDoesNotThrow(() -> handler.validate(parser.parse(body, null)));
    }

    private String refused(String body) {
        return assertThrows(InvalidMessageException.class, () -> handler.validate(parser.parse(body, null)))
                .getMessage();
    }

    @Test
    void everyKnownTypeWithItsPayloadIsValid() {
        valid("{\"eventId\":\"e\",\"type\":\"ORDER_CREATED\",\"aggregateId\":\"o\","
                + "\"payload\":{\"customerId\":\"c\",\"amount\":1,\"currency\":\"EUR\"}}");
        valid("{\"eventId\":\"e\",\"type\":\"ORDER_PAID\",\"aggregateId\":\"o\",\"payload\":{\"amount\":5,\"currency\":\"USD\"}}");
        valid("{\"eventId\":\"e\",\"type\":\"ORDER_SHIPPED\",\"aggregateId\":\"o\",\"payload\":{\"carrier\":\"x\"}}");
        valid("{\"eventId\":\"e\",\"type\":\"ORDER_CANCELLED\",\"aggregateId\":\"o\"}");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "unknown type      | {\"eventId\":\"e\",\"type\":\"ORDER_EXPLODED\",\"aggregateId\":\"o\"} | unknown event type 'ORDER_EXPLODED' for consumer orders",
            "no order id       | {\"eventId\":\"e\",\"type\":\"ORDER_CANCELLED\"} | field 'aggregateId' (the order id) is required",
            "negative amount   | {\"eventId\":\"e\",\"type\":\"ORDER_PAID\",\"aggregateId\":\"o\",\"payload\":{\"amount\":-5,\"currency\":\"EUR\"}} | field 'payload.amount' must be a positive integer",
            "amount as text    | {\"eventId\":\"e\",\"type\":\"ORDER_PAID\",\"aggregateId\":\"o\",\"payload\":{\"amount\":\"5\",\"currency\":\"EUR\"}} | field 'payload.amount' must be a positive integer",
            "no amount         | {\"eventId\":\"e\",\"type\":\"ORDER_PAID\",\"aggregateId\":\"o\",\"payload\":{\"currency\":\"EUR\"}} | field 'payload.amount' is required",
            "not a currency    | {\"eventId\":\"e\",\"type\":\"ORDER_PAID\",\"aggregateId\":\"o\",\"payload\":{\"amount\":5,\"currency\":\"EURO\"}} | field 'payload.currency' must be an ISO-4217 code",
            "no customer       | {\"eventId\":\"e\",\"type\":\"ORDER_CREATED\",\"aggregateId\":\"o\",\"payload\":{\"amount\":5,\"currency\":\"EUR\"}} | field 'payload.customerId' is required",
            "carrier as number | {\"eventId\":\"e\",\"type\":\"ORDER_SHIPPED\",\"aggregateId\":\"o\",\"payload\":{\"carrier\":7}} | field 'payload.carrier' must be a string",
    })
    void aBrokenOrderEventIsRefusedWithItsReason(String name, String body, String reason) {
        String refusal = refused(body);
        assertTrue(refusal.contains(reason), refusal);
    }
}
