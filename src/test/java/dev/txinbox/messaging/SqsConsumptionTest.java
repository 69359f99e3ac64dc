package dev.txinbox.messaging;

import static dev.txinbox.support.Events.ledger;
import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import dev.txinbox.support.LedgerConsumer;
import dev.txinbox.support.ServiceTest;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The SmallRye SQS connector's traps, each as a scenario against ElasticMQ, through the test-only
 * "ledger" consumer whose payload scripts failures and slowness.
 */
@QuarkusTest
class SqsConsumptionTest extends ServiceTest {

    @jakarta.inject.Inject
    LedgerConsumer ledger;

    private static final String LEDGER = LedgerConsumer.CONSUMER;

    @Test
    void systemAttributesAreRequestedAndRecorded() {
        String group = unique("grp"), event = unique("evt");
        String sqsId = queues.send("ledger.fifo", group, ledger(event, group, "{}"));

        eventually().until(() -> "PROCESSED".equals(db.inboxStatus(LEDGER, event)));
        Map<String, Object> row = db.row("select source_queue, source_message_id, source_group_id, source_sent_at,"
                + " receive_count from inbox_messages where consumer_name = ? and message_id = ?", LEDGER, event);
        assertEquals("ledger.fifo", row.get("source_queue"));
        assertEquals(sqsId, row.get("source_message_id"));
        assertEquals(group, row.get("source_group_id"));
        assertNotNull(row.get("source_sent_at"));
        assertEquals(1, row.get("receive_count"));
    }

    @Test
    void aFailingMessageIsNotOvertakenByLaterMessagesOfItsGroupFetchedWithIt() throws InterruptedException {
        String group = unique("grp");
        String m0 = unique("m0"), m1 = unique("m1"), m2 = unique("m2"), m3 = unique("m3");
        // m0 keeps the group in flight while m1..m3 are queued, so one receive returns all three.
        queues.send("ledger.fifo", group, ledger(m0, group, "{\"hold\":true}"));
        assertTrue(ledger.awaitStarted(m0), "m0 is being processed");
        queues.sendBatch("ledger.fifo", group, List.of(
                ledger(m1, group, "{\"failTimes\":1}"), ledger(m2, group, "{}"), ledger(m3, group, "{}")));
        ledger.release(m0);

        eventually().until(() -> "PROCESSED".equals(db.inboxStatus(LEDGER, m3)));
        List<Object> applied = db.rows("select event_id from ledger_entries where group_key = ? order by id", group)
                .stream().map(r -> r.get("event_id")).toList();
        // No sequence numbers: only the group order keeps m1 first.
        assertEquals(List.of(m0, m1, m2, m3), applied);
        assertEquals(2, db.row("select receive_count from inbox_messages where message_id = ?", m1).get("receive_count"));
    }

    @Test
    void aTransientFailureRollsBackEverythingAndTheRetryAppliesOnce() {
        String group = unique("grp"), event = unique("evt");
        queues.send("ledger.fifo", group, ledger(event, group, "{\"failTimes\":2}"));

        eventually().until(() -> "PROCESSED".equals(db.inboxStatus(LEDGER, event)));
        // Each failed attempt wrote its ledger row before throwing; both rolled back with the inbox claim.
        assertEquals(1, db.count("select count(*) from ledger_entries where event_id = ?", event));
        assertEquals(3, db.row("select receive_count from inbox_messages where message_id = ?", event).get("receive_count"));
        eventually().until(() -> queues.depth("ledger.fifo") == 0);
    }

    @Test
    void aDeleteThatFailsAfterASlowCommitDoesNotStopTheChannel() {
        String group = unique("grp"), slow = unique("slow"), after = unique("after");
        // Slower than the queue's visibility timeout: SQS hands the message out again while it runs,
        // so the first delete carries a stale receipt handle and is refused.
        long sleep = (dev.txinbox.support.ElasticMqResource.LEDGER_VISIBILITY_SECONDS + 2) * 1000L;
        queues.send("ledger.fifo", group, ledger(slow, group, "{\"sleepMs\":" + sleep + "}"));

        eventually().until(() -> "PROCESSED".equals(db.inboxStatus(LEDGER, slow)));
        String next = unique("grp");
        queues.send("ledger.fifo", next, ledger(after, next, "{}"));
        eventually().until(() -> "PROCESSED".equals(db.inboxStatus(LEDGER, after)));
        eventually().until(() -> queues.depth("ledger.fifo") == 0);
        assertEquals(1, db.count("select count(*) from ledger_entries where event_id = ?", slow));
    }

    @Test
    void oneSlowGroupDoesNotHoldUpTheOthers() throws InterruptedException {
        String slowGroup = unique("slow"), slow = unique("evt");
        queues.send("ledger.fifo", slowGroup, ledger(slow, slowGroup, "{\"hold\":true}"));
        assertTrue(ledger.awaitStarted(slow), "the slow message is being processed");
        // The slow batch holds its worker; what arrives now goes to the others.
        List<String> fast = IntStream.range(0, 6).mapToObj(i -> unique("fast")).toList();
        for (String event : fast) {
            queues.send("ledger.fifo", event, ledger(event, event, "{}"));
        }
        try {
            eventually().until(() -> fast.stream().allMatch(e -> "PROCESSED".equals(db.inboxStatus(LEDGER, e))));
            assertNull(db.inboxStatus(LEDGER, slow), "the slow group is still running, the others are done");
        } finally {
            ledger.release(slow);
        }
        eventually().until(() -> "PROCESSED".equals(db.inboxStatus(LEDGER, slow)));
    }

}
