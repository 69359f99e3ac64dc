package dev.txinbox.inbox;

import static dev.txinbox.support.Events.ledger;
import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.support.JsonLogLines;
import dev.txinbox.support.LedgerConsumer;
import dev.txinbox.support.ServiceTest;
import dev.txinbox.support.Settings;
import io.quarkus.test.junit.QuarkusTest;

/** The claim against a real PostgreSQL, without any broker: the inbox core on its own. */
@QuarkusTest
class InboxClaimTest extends ServiceTest {

    private static final TxinboxConfig.Retry RETRY = Settings.retry(Duration.ofSeconds(1), Duration.ofSeconds(1), 3);

    @Inject
    Inbox inbox;

    @Inject
    LedgerConsumer ledger;

    @Test
    void twoTransactionsClaimingTheSameEventAtOnceApplyItExactlyOnce() throws Exception {
        String eventId = unique("evt");
        // The first claim's handler holds its transaction open until the second claim waits on its row.
        String body = ledger(eventId, "g", "{\"hold\":true}");
        long waitingBefore = lockWaits();
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            CompletableFuture<InboxResult> first = CompletableFuture.supplyAsync(
                    () -> inbox.receive(message(body), RETRY), threads);
            assertTrue(ledger.awaitStarted(eventId), "the first claim's handler runs");
            CompletableFuture<InboxResult> second = CompletableFuture.supplyAsync(
                    () -> inbox.receive(message(body), RETRY), threads);
            eventually().until(() -> lockWaits() > waitingBefore);
            ledger.release(eventId);
            Set<Outcome> outcomes = Set.of(first.get().outcome(), second.get().outcome());
            assertEquals(Set.of(Outcome.PROCESSED, Outcome.DUPLICATE), outcomes);
        } finally {
            ledger.release(eventId);
            threads.shutdownNow();
        }
        assertEquals(1, db.count("select count(*) from ledger_entries where event_id = ?", eventId));
        assertEquals(1, db.count("select count(*) from inbox_messages where message_id = ?", eventId));
        assertEquals("PROCESSED", db.inboxStatus(LedgerConsumer.CONSUMER, eventId));
    }

    @Test
    void aFailedAttemptLeavesNoBusinessChangeAndDoesNotCountAsADuplicate() {
        String eventId = unique("evt");
        String body = ledger(eventId, "g", "{\"failTimes\":1}");
        assertEquals(Outcome.RETRIED, inbox.receive(message(body), RETRY).outcome());
        // The business write rolled back; the attempt is recorded on its own.
        assertEquals("FAILED", db.inboxStatus(LedgerConsumer.CONSUMER, eventId));
        assertEquals(0, db.count("select count(*) from ledger_entries where event_id = ?", eventId));
        assertEquals(Outcome.PROCESSED, inbox.receive(message(body), RETRY).outcome());
        assertEquals(2, db.count("select attempt_count from inbox_messages where message_id = ?", eventId));
        assertEquals(Outcome.DUPLICATE, inbox.receive(message(body), RETRY).outcome());
    }

    @Test
    void whitespaceAndKeyOrderDoNotMakeAConflict() {
        String eventId = unique("evt");
        String body = "{\"eventId\":\"" + eventId + "\",\"type\":\"ENTRY\",\"payload\":{\"a\":1,\"b\":2}}";
        String reordered = "{ \"payload\": {\"b\": 2, \"a\": 1}, \"type\": \"ENTRY\", \"eventId\": \"" + eventId + "\" }";
        assertEquals(Outcome.PROCESSED, inbox.receive(message(body), RETRY).outcome());
        assertEquals(Outcome.DUPLICATE, inbox.receive(message(reordered), RETRY).outcome());
        assertEquals(Outcome.CONFLICT, inbox.receive(message(body.replace("\"b\":2", "\"b\":3")), RETRY).outcome());
    }

    @Test
    void theConflictsWarningCarriesTheMessagesIdentityForALogSearch() {
        String eventId = unique("evt");
        String body = ledger(eventId, "g", "{\"amount\":1}");
        String traceId = "5ce0e9a56015fec5aadfa328ae398115";
        MessageSource resent = new MessageSource("ledger.fifo", "sqs-" + eventId, "g", null, 1,
                "00-" + traceId + "-ab42124a3c573678-01");
        assertEquals(Outcome.PROCESSED, inbox.receive(message(body), RETRY).outcome());
        try (JsonLogLines lines = JsonLogLines.of(Inbox.class)) {
            assertEquals(Outcome.CONFLICT, inbox.receive(new IncomingMessage(LedgerConsumer.CONSUMER,
                    body.replace("\"amount\":1", "\"amount\":2"), null, resent), RETRY).outcome());
            JsonNode mdc = lines.first("conflict", eventId).path("mdc");
            assertEquals(LedgerConsumer.CONSUMER, mdc.path("consumer").asText(), mdc.toString());
            assertEquals(eventId, mdc.path("eventId").asText(), mdc.toString());
            assertEquals("sqs-" + eventId, mdc.path("sqsMessageId").asText(), mdc.toString());
            assertEquals(traceId, mdc.path("traceId").asText(), mdc.toString());
        }
    }

    /** Sessions of this database waiting for a lock another transaction holds. */
    private long lockWaits() {
        return db.count("select count(*) from pg_stat_activity where datname = current_database()"
                + " and wait_event_type = 'Lock'");
    }

    private static IncomingMessage message(String body) {
        return new IncomingMessage(LedgerConsumer.CONSUMER, body, null, MessageSource.unknown());
    }
}
