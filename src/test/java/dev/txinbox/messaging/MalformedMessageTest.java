package dev.txinbox.messaging;

import static dev.txinbox.support.Events.created;
import static dev.txinbox.support.Events.event;
import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import dev.txinbox.support.Metrics;
import dev.txinbox.support.ServiceTest;
import io.quarkus.test.junit.QuarkusTest;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Bad input goes to the dead-letter queue at once, with a reason an operator can act on, and blocks
 * neither its group nor the channel.
 */
@QuarkusTest
class MalformedMessageTest extends ServiceTest {

    /**
     * One scenario per family of bad input, end to end. The rules of each family, row by row, are plain tests:
     * the envelope's in EventParserTest, the orders handler's in OrderValidationTest, the database's refusals in
     * FailurePolicyTest; PoisonFloodTest sends a thousand more through the service.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "the envelope: not JSON | {\"eventId\": \"%s\", oops                                   | body is not valid JSON",
            "the handler: negative amount | {\"eventId\":\"%s\",\"type\":\"ORDER_PAID\",\"aggregateId\":\"o\",\"payload\":{\"amount\":-5,\"currency\":\"EUR\"}} | field 'payload.amount' must be a positive integer",
            // Valid JSON whose text PostgreSQL refuses (NUL, SQLState 22021) once the handler writes it:
            // the message's own fault, never a database outage.
            "the database: NUL the handler writes | {\"eventId\":\"%s\",\"type\":\"ORDER_CREATED\",\"aggregateId\":\"o-nul\",\"payload\":{\"customerId\":\"a\\u0000b\",\"amount\":1,\"currency\":\"EUR\"}} | the database refused the message's data",
            // An instant PostgreSQL cannot store: which SQLState the driver gives it only the database can tell.
            "the database: instant out of range | {\"eventId\":\"%s\",\"type\":\"ORDER_CREATED\",\"aggregateId\":\"o-far\",\"occurredAt\":\"+1000000000-01-01T00:00:00Z\",\"payload\":{\"customerId\":\"c\",\"amount\":1,\"currency\":\"EUR\"}} | the database refused the message's data",
    })
    void badInputIsDeadLetteredWithItsReasonAndTheGroupMovesOn(String name, String bodyTemplate, String reason) {
        String group = unique("ord"), bad = unique("bad"), good = unique("evt");
        double before = Metrics.outcomes("orders", "dead_lettered");
        String sqsId = queues.send("orders.fifo", group, bodyTemplate.formatted(bad));
        queues.send("orders.fifo", group, created(good, group, null, 100));

        eventually().until(() -> "PROCESSED".equals(db.inboxStatus("orders", good)));
        Message copy = awaitDeadLetter("orders-dlq.fifo", sqsId);
        assertEquals(bodyTemplate.formatted(bad), copy.body());
        assertEquals(group, copy.attributes().get(software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName.MESSAGE_GROUP_ID));
        assertEquals("invalid message", copy.messageAttributes().get("txinbox-reason").stringValue());
        String recorded = copy.messageAttributes().get("txinbox-error").stringValue();
        assertTrue(recorded.contains(reason), recorded);
        assertEquals("1", copy.messageAttributes().get("txinbox-attempts").stringValue());
        assertEquals("orders", copy.messageAttributes().get("txinbox-consumer").stringValue());
        assertNotNull(copy.messageAttributes().get("txinbox-first-received-at"));

        Map<String, Object> entry = db.row("select status, error_text from inbox_messages where consumer_name = 'orders'"
                + " and source_message_id = ?", sqsId);
        assertEquals("DEAD", entry.get("status"));
        assertTrue(((String) entry.get("error_text")).contains(reason));
        eventually().until(() -> Metrics.outcomes("orders", "dead_lettered") >= before + 1);
        eventually().until(() -> queues.depth("orders.fifo") == 0);
    }

    @Test
    void aProducersClassNameAttributeCannotEndTheChannel() {
        // The connector deserialises into any class named by a "_classname" attribute, and an unknown
        // name ends the channel. txinbox never asks SQS for that attribute.
        String group = unique("ord"), first = unique("evt"), second = unique("evt");
        queues.send("orders.fifo", group, created(first, group, null, 100), Map.of("_classname", "does.not.Exist"));
        queues.send("orders.fifo", unique("ord"), created(second, unique("x"), null, 100));
        eventually().until(() -> "PROCESSED".equals(db.inboxStatus("orders", first)));
        eventually().until(() -> "PROCESSED".equals(db.inboxStatus("orders", second)));
    }

    @Test
    void theEventIdMayComeAsAMessageAttribute() {
        String group = unique("ord"), eventId = unique("evt");
        String body = event("ignored", "ORDER_CREATED", group, null,
                "{\"customerId\":\"c\",\"amount\":1,\"currency\":\"EUR\"}").replace("\"eventId\":\"ignored\",", "");
        queues.send("orders.fifo", group, body, Map.of("event-id", eventId));
        eventually().until(() -> "PROCESSED".equals(db.inboxStatus("orders", eventId)));
    }
}
