package dev.txinbox.outbox;

import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import dev.txinbox.support.ServiceTest;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;

/** Recording: events commit with the transaction that recorded them, numbered per aggregate in commit order. */
@QuarkusTest
class OutboxRecordingTest extends ServiceTest {

    @Inject
    Outbox outbox;

    @Inject
    EntityManager entityManager;

    @Test
    void eventsCommitWithTheTransactionNumberedPerAggregate() {
        String a = unique("agg"), b = unique("agg");
        UUID[] ids = new UUID[3];
        QuarkusTransaction.requiringNew().run(() -> {
            ids[0] = outbox.record("order", a, "OrderAccepted", "{\"orderId\": \"" + a + "\", \"amount\": 12}");
            ids[1] = outbox.record("order", b, "OrderAccepted", JsonNodeFactory.instance.objectNode().put("n", 1));
            ids[2] = outbox.record("order", a, "OrderPaid", "{\"orderId\": \"" + a + "\"}");
        });
        List<Map<String, Object>> rows = db.rows("select id, aggregatetype, aggregateid, type, sequence, partition,"
                + " payload::text as payload, attempts, published_at from outbox_events where aggregateid in (?, ?)"
                + " order by aggregateid, sequence", a, b);
        assertEquals(3, rows.size());
        Map<String, Object> first = rows.stream().filter(r -> r.get("id").equals(ids[0])).findFirst().orElseThrow();
        assertEquals(1L, first.get("sequence"));
        assertEquals("order", first.get("aggregatetype"));
        assertEquals("OrderAccepted", first.get("type"));
        assertEquals("{\"amount\": 12, \"orderId\": \"" + a + "\"}", first.get("payload"));
        assertEquals(Math.floorMod(a.hashCode(), 16), first.get("partition"));
        assertEquals(0, first.get("attempts"));
        assertEquals(2L, db.row("select sequence from outbox_events where id = ?", ids[2]).get("sequence"));
        assertEquals(1L, db.row("select sequence from outbox_events where id = ?", ids[1]).get("sequence"));
        assertEquals(2L, db.count("select last_sequence from outbox_sequences where aggregateid = ?", a));

        // The next transaction goes on where the last one stopped.
        QuarkusTransaction.requiringNew().run(() -> outbox.record("order", a, "OrderShipped", "{}"));
        assertEquals(List.of(1L, 2L, 3L), sequences(a));
    }

    @Test
    void aRolledBackTransactionWritesNothingAndTakesItsNumbersWithIt() {
        String a = unique("agg");
        assertThrows(RuntimeException.class, () -> QuarkusTransaction.requiringNew().run(() -> {
            outbox.record("order", a, "OrderAccepted", "{}");
            // Written at the flush (as the inbox does at a batch's end), then rolled back with the transaction.
            outbox.flush();
            throw new IllegalStateException("the handler failed");
        }));
        assertEquals(0, db.count("select count(*) from outbox_events where aggregateid = ?", a));
        assertEquals(0, db.count("select count(*) from outbox_sequences where aggregateid = ?", a));

        QuarkusTransaction.requiringNew().run(() -> outbox.record("order", a, "OrderAccepted", "{}"));
        assertEquals(List.of(1L), sequences(a));
    }

    @Test
    void racingTransactionsOnOneAggregateAreNumberedInCommitOrder() throws Exception {
        // Threads of their own: each transaction blocks its thread, which the common pool (one thread on two cores)
        // would not make up for.
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            race(threads);
        } finally {
            threads.shutdownNow();
        }
    }

    private void race(ExecutorService threads) throws Exception {
        String a = unique("agg");
        QuarkusTransaction.requiringNew().run(() -> outbox.record("order", a, "E0", "{}"));

        // T1 takes its number first and holds it; T2 must wait for T1's end to get the next one.
        CountDownLatch t1Flushed = new CountDownLatch(1);
        CountDownLatch t1MayEnd = new CountDownLatch(1);
        UUID[] ids = new UUID[2];
        CompletableFuture<Void> t1 = CompletableFuture.runAsync(() -> QuarkusTransaction.requiringNew().run(() -> {
            ids[0] = outbox.record("order", a, "T1", "{}");
            outbox.flush();
            t1Flushed.countDown();
            await(t1MayEnd);
        }), threads);
        assertTrue(t1Flushed.await(30, TimeUnit.SECONDS));
        CompletableFuture<Void> t2 = CompletableFuture.runAsync(() -> QuarkusTransaction.requiringNew().run(() -> {
            ids[1] = outbox.record("order", a, "T2", "{}");
        }), threads);
        // T2's commit flushes and blocks on T1's counter row.
        eventually().until(() -> db.count("select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                + " and query like '%outbox_sequences%' and datname = current_database()") == 1);
        t1MayEnd.countDown();
        t1.get(30, TimeUnit.SECONDS);
        t2.get(30, TimeUnit.SECONDS);
        assertEquals(2L, db.row("select sequence from outbox_events where id = ?", ids[0]).get("sequence"));
        assertEquals(3L, db.row("select sequence from outbox_events where id = ?", ids[1]).get("sequence"));

        // The same race where T1 rolls back: T2 takes T1's number, so no number is skipped.
        CountDownLatch t3Flushed = new CountDownLatch(1);
        CountDownLatch t3MayEnd = new CountDownLatch(1);
        CompletableFuture<Void> t3 = CompletableFuture.runAsync(() -> QuarkusTransaction.requiringNew().run(() -> {
            outbox.record("order", a, "T3", "{}");
            outbox.flush();
            t3Flushed.countDown();
            await(t3MayEnd);
            throw new IllegalStateException("T3 fails");
        }), threads);
        assertTrue(t3Flushed.await(30, TimeUnit.SECONDS));
        UUID[] t4Id = new UUID[1];
        CompletableFuture<Void> t4 = CompletableFuture.runAsync(() -> QuarkusTransaction.requiringNew().run(() -> {
            t4Id[0] = outbox.record("order", a, "T4", "{}");
        }), threads);
        eventually().until(() -> db.count("select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                + " and query like '%outbox_sequences%' and datname = current_database()") == 1);
        t3MayEnd.countDown();
        assertThrows(Exception.class, () -> t3.get(30, TimeUnit.SECONDS));
        t4.get(30, TimeUnit.SECONDS);
        assertNotNull(t4Id[0]);
        assertEquals(4L, db.row("select sequence from outbox_events where id = ?", t4Id[0]).get("sequence"));
        assertEquals(List.of(1L, 2L, 3L, 4L), sequences(a));
        assertEquals(List.of("E0", "T1", "T2", "T4"), db.rows("select type from outbox_events where aggregateid = ?"
                + " order by sequence", a).stream().map(r -> (String) r.get("type")).toList());
    }

    @Test
    void aSequenceHandedOutTwiceCannotBePendingTwice() {
        String a = unique("agg");
        // A counter set back (by hand, say) while its aggregate's event is still pending: the second event with
        // the same sequence would reach the queue beside the first, so the commit is refused, with both events.
        assertThrows(RuntimeException.class, () -> QuarkusTransaction.requiringNew().run(() -> {
            outbox.record("order", a, "OrderAccepted", "{}");
            outbox.flush();
            entityManager.createNativeQuery("update outbox_sequences set last_sequence = 0 where aggregateid = ?1")
                    .setParameter(1, a).executeUpdate();
            outbox.record("order", a, "OrderPaid", "{}");
        }));
        assertEquals(0, db.count("select count(*) from outbox_events where aggregateid = ?", a));
    }

    @Test
    void recordingNeedsATransactionAndAJsonObject() {
        assertThrows(IllegalStateException.class, () -> outbox.record("order", "o", "T", "{}"));
        assertThrows(IllegalArgumentException.class,
                () -> QuarkusTransaction.requiringNew().run(() -> outbox.record("order", "o", "T", "not json")));
        assertThrows(IllegalArgumentException.class,
                () -> QuarkusTransaction.requiringNew().run(() -> outbox.record("order", "o", "T", "[1]")));
        assertThrows(IllegalArgumentException.class,
                () -> QuarkusTransaction.requiringNew().run(() -> outbox.record("order", " ", "T", "{}")));
    }

    private List<Long> sequences(String aggregate) {
        return db.rows("select sequence from outbox_events where aggregateid = ? order by sequence", aggregate).stream()
                .map(r -> (Long) r.get("sequence")).toList();
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never let the transaction end");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
