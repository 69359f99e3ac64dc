package dev.txinbox.inbox;

import static dev.txinbox.support.Events.ledger;
import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.txinbox.config.TxinboxConfig;
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

    @Test
    void twoTransactionsClaimingTheSameEventAtOnceApplyItExactlyOnce() throws Exception {
        String eventId = unique("evt");
        // The handler is slow, so the second claim arrives while the first transaction is still open.
        String body = ledger(eventId, "g", "{\"sleepMs\":700}");
        CyclicBarrier start = new CyclicBarrier(2);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<CompletableFuture<InboxResult>> results = List.of(
                    CompletableFuture.supplyAsync(() -> claimAfter(start, body), threads),
                    CompletableFuture.supplyAsync(() -> claimAfter(start, body), threads));
            Set<Outcome> outcomes = Set.of(results.get(0).get().outcome(), results.get(1).get().outcome());
            assertEquals(Set.of(Outcome.PROCESSED, Outcome.DUPLICATE), outcomes);
        } finally {
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

    private InboxResult claimAfter(CyclicBarrier start, String body) {
        try {
            start.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return inbox.receive(message(body), RETRY);
    }

    private static IncomingMessage message(String body) {
        return new IncomingMessage(LedgerConsumer.CONSUMER, body, null, MessageSource.unknown());
    }
}
