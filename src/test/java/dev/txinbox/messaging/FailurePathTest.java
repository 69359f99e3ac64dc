package dev.txinbox.messaging;

import static dev.txinbox.support.Events.ledger;
import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Timestamp;
import java.time.Instant;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.txinbox.support.LedgerConsumer;
import dev.txinbox.support.LogCapture;
import dev.txinbox.support.Metrics;
import dev.txinbox.support.ServiceTest;
import io.quarkus.test.junit.QuarkusTest;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Transient failures: each attempt recorded, retried after a growing delay, dead-lettered after the
 * last one (the ledger consumer allows 3), and a group's order kept throughout.
 */
@QuarkusTest
class FailurePathTest extends ServiceTest {

    private static final String LEDGER = LedgerConsumer.CONSUMER;

    @Inject
    LedgerConsumer ledger;

    @Test
    void eachFailedAttemptIsRecordedAndRetriedAfterABackoff() {
        String group = unique("grp"), event = unique("evt");
        queues.send("ledger.fifo", group, ledger(event, group, null, "{\"failTimes\":2}"));

        eventually().until(() -> "PROCESSED".equals(db.inboxStatus(LEDGER, event)));
        Map<String, Object> entry = db.row("select attempt_count, processed_at, next_attempt_at, error_text"
                + " from inbox_messages where message_id = ?", event);
        assertEquals(3, entry.get("attempt_count"));
        assertEquals(null, entry.get("next_attempt_at"));
        assertEquals(null, entry.get("error_text"));
        List<Map<String, Object>> history = db.rows("select attempt, failed_at, error_text, receive_count"
                + " from inbox_attempts where message_id = ? order by attempt", event);
        assertEquals(2, history.size());
        assertTrue(((String) history.get(0).get("error_text")).contains("scripted failure 1"));
        assertTrue(((String) history.get(1).get("error_text")).contains("scripted failure 2"));
        // No hot loop: at least the one-second minimum between attempts.
        assertTrue(gap(history.get(0).get("failed_at"), history.get(1).get("failed_at")).toMillis() >= 900);
        assertTrue(gap(history.get(1).get("failed_at"), entry.get("processed_at")).toMillis() >= 900);
        assertEquals(1, db.count("select count(*) from ledger_entries where event_id = ?", event));
    }

    @Test
    void afterTheLastAttemptTheMessageIsDeadLetteredWithItsHistory() {
        String group = unique("grp"), event = unique("evt");
        double before = Metrics.outcomes("ledger", "dead_lettered");
        String sqsId = queues.send("ledger.fifo", group, ledger(event, group, null, "{\"failTimes\":99}"));

        eventually().until(() -> "DEAD".equals(db.inboxStatus(LEDGER, event)));
        Message copy = awaitDeadLetter("ledger-dlq.fifo", sqsId);
        assertEquals("gave up after 3 attempts", attribute(copy, "txinbox-reason"));
        assertTrue(attribute(copy, "txinbox-error").contains("scripted failure 3"));
        assertEquals("3", attribute(copy, "txinbox-attempts"));
        assertEquals("ledger", attribute(copy, "txinbox-consumer"));
        assertNotNull(attribute(copy, "txinbox-first-received-at"));
        assertEquals(group, copy.attributes().get(
                software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName.MESSAGE_GROUP_ID));

        assertEquals(3, db.row("select attempt_count from inbox_messages where message_id = ?", event).get("attempt_count"));
        assertEquals(3, db.count("select count(*) from inbox_attempts where message_id = ?", event));
        assertEquals(0, db.count("select count(*) from ledger_entries where event_id = ?", event));
        eventually().until(() -> queues.depth("ledger.fifo") == 0);
        eventually().until(() -> Metrics.outcomes("ledger", "dead_lettered") >= before + 1);
        assertTrue(Metrics.scrape().contains("txinbox_attempts_count{consumer=\"ledger\",outcome=\"dead_lettered\"}"));

        // A dead-lettered event never took effect: sent again (fixed), it is processed, not a duplicate.
        queues.send("ledger.fifo", group, ledger(event, group, null, "{}"));
        eventually().until(() -> "PROCESSED".equals(db.inboxStatus(LEDGER, event)));
        assertEquals(1, db.count("select count(*) from ledger_entries where event_id = ?", event));
    }

    @Test
    void whileAnEventRetriesItsSuccessorsWaitAndAfterTheDeadLetterTheyParkUntilTheGapFills() throws InterruptedException {
        String group = unique("agg");
        String m0 = unique("m0"), m1 = unique("m1"), m2 = unique("m2"), m3 = unique("m3");
        // m0 keeps the group in flight while m1..m3 are queued, so they are fetched together after it.
        queues.send("ledger.fifo", group, ledger(m0, group, null, "{\"hold\":true}"));
        assertTrue(ledger.awaitStarted(m0), "m0 is being processed");
        queues.sendBatch("ledger.fifo", group, List.of(
                ledger(m1, group, 1L, "{\"failTimes\":99}"),
                ledger(m2, group, 2L, "{}"),
                ledger(m3, group, 3L, "{}")));
        ledger.release(m0);

        eventually().until(() -> "DEAD".equals(db.inboxStatus(LEDGER, m1)));
        eventually().until(() -> "PARKED".equals(db.inboxStatus(LEDGER, m2)) && "PARKED".equals(db.inboxStatus(LEDGER, m3)));
        // Neither successor was ever applied, nor even recorded, while m1 was being retried.
        assertEquals(List.of(m0), appliedIn(group));
        assertTrue(received(m2).isAfter(deadAt(m1)), "m2 was first taken after m1 was dead-lettered");

        // The gap is filled by the fixed event (as a redrive or a replay would bring it).
        queues.send("ledger.fifo", group, ledger(m1, group, 1L, "{}"));
        eventually().until(() -> "PROCESSED".equals(db.inboxStatus(LEDGER, m3)));
        assertEquals(List.of(m0, m1, m2, m3), appliedIn(group));
    }

    @Test
    void whenTheDeadLetterQueueRefusesTheCopyTheMessageStaysInItsQueue() throws Exception {
        String group = unique("grp"), event = unique("evt");
        queues.deleteQueue("ledger-dlq.fifo");
        try (LogCapture log = LogCapture.of(Settlement.class)) {
            String bad = "{\"eventId\":\"" + event + "\",\"type\":\"NOT_A_LEDGER_TYPE\"}";
            queues.send("ledger.fifo", group, bad);
            // The proof that the copy was tried and refused: the message is sent back to try again.
            eventually().until(() -> log.logged("(event " + event + ")", "dead-lettering failed"));
            assertEquals(1, queues.depth("ledger.fifo"), "no copy, no delete");
            assertEquals(null, db.inboxStatus(LEDGER, event));
        } finally {
            queues.createFifo("ledger-dlq.fifo", 30, null);
        }
        eventually().until(() -> "DEAD".equals(db.inboxStatus(LEDGER, event)));
        eventually().until(() -> queues.depth("ledger.fifo") == 0);
        assertTrue(attribute(awaitMessage("ledger-dlq.fifo", m -> m.body().contains(event)), "txinbox-error").contains("unknown event type"));
    }

    @Test
    void anEventItsHandlerRefusesIsRecordedDeadWithWhatParsedAndItsReason() {
        String group = unique("grp"), event = unique("evt");
        String refused = "{\"eventId\":\"" + event + "\",\"type\":\"NOT_A_LEDGER_TYPE\",\"aggregateId\":\"" + group
                + "\",\"sequence\":7,\"payload\":{}}";
        String sqsId = queues.send("ledger.fifo", group, refused);

        eventually().until(() -> "DEAD".equals(db.inboxStatus(LEDGER, event)));
        Message copy = awaitDeadLetter("ledger-dlq.fifo", sqsId);
        assertEquals("invalid message", attribute(copy, "txinbox-reason"));
        // The row holds what the inbox parsed when it decided: the body parsed, only the handler refused it.
        Map<String, Object> row = db.row("select event_type, aggregate_id, sequence_number, error_text, source_message_id"
                + " from inbox_messages where message_id = ?", event);
        assertEquals("NOT_A_LEDGER_TYPE", row.get("event_type"));
        assertEquals(group, row.get("aggregate_id"));
        assertEquals(7L, ((Number) row.get("sequence_number")).longValue());
        assertEquals(sqsId, row.get("source_message_id"));
        assertTrue(((String) row.get("error_text")).startsWith("invalid message: unknown event type 'NOT_A_LEDGER_TYPE'"),
                (String) row.get("error_text"));
        eventually().until(() -> queues.depth("ledger.fifo") == 0);
    }

    private List<Object> appliedIn(String group) {
        return db.rows("select event_id from ledger_entries where group_key = ? order by id", group).stream()
                .map(r -> r.get("event_id")).toList();
    }

    private Instant received(String event) {
        return instant(db.row("select received_at from inbox_messages where message_id = ?", event).get("received_at"));
    }

    private Instant deadAt(String event) {
        return instant(db.row("select processed_at from inbox_messages where message_id = ?", event).get("processed_at"));
    }

    private static Duration gap(Object from, Object to) {
        return Duration.between(instant(from), instant(to));
    }

    private static Instant instant(Object timestamp) {
        return ((Timestamp) timestamp).toInstant();
    }

    private static String attribute(Message message, String name) {
        var value = message.messageAttributes().get(name);
        return value == null ? null : value.stringValue();
    }
}
