package dev.txinbox.orders;

import static dev.txinbox.support.Events.cancelled;
import static dev.txinbox.support.Events.created;
import static dev.txinbox.support.Events.paid;
import static dev.txinbox.support.Events.shipped;
import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.txinbox.support.Metrics;
import dev.txinbox.support.ServiceTest;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Order events through orders.fifo, end to end: SQS → inbox → orders, each applied once; and the orders state
 * machine's business rejections, final, kept with their reason, changing nothing and stalling no stream. Which
 * status may become which is OrderStatusTest's, with no service.
 */
@QuarkusTest
class OrderStreamTest extends ServiceTest {

    @Test
    void anOrderLifecycleIsAppliedAndTheQueueEmpties() {
        String order = unique("ord");
        String e1 = unique("evt"), e2 = unique("evt"), e3 = unique("evt");
        double processed = Metrics.outcomes("orders", "processed");
        queues.send("orders.fifo", order, created(e1, order, 1L, 4999));
        queues.send("orders.fifo", order, paid(e2, order, 2L, 4999));
        queues.send("orders.fifo", order, shipped(e3, order, 3L));

        eventually().until(() -> "PROCESSED".equals(db.inboxStatus("orders", e3)));
        Map<String, Object> row = db.row("select status, amount, currency, paid_amount, paid_at, carrier from orders where id = ?", order);
        assertEquals("SHIPPED", row.get("status"));
        assertEquals(4999L, row.get("paid_amount"));
        assertEquals("EUR", row.get("currency"));
        assertNotNull(row.get("paid_at"));
        assertEquals("DHL", row.get("carrier"));
        assertEquals(1, db.count("select count(*) from payment_audit where order_id = ? and message_id = ?", order, e2));
        assertEquals(3L, db.count("select last_sequence from stream_state where consumer_name = 'orders' and aggregate_id = ?", order));
        eventually().until(() -> queues.depth("orders.fifo") == 0);
        eventually().until(() -> Metrics.outcomes("orders", "processed") >= processed + 3);
    }

    @Test
    void aRedeliveredOrReSentEventIsADuplicateAndAppliesOnce() {
        String order = unique("ord");
        String e1 = unique("evt"), e2 = unique("evt");
        queues.send("orders.fifo", order, created(e1, order, 1L, 100));
        queues.send("orders.fifo", order, paid(e2, order, 2L, 100));
        // The producer re-sends the payment with a new SQS message (new dedup id, same eventId).
        queues.send("orders.fifo", order, paid(e2, order, 2L, 100));
        String marker = unique("evt");
        queues.send("orders.fifo", order, cancelled(marker, order, 3L));

        eventually().until(() -> db.inboxStatus("orders", marker) != null);
        assertEquals(1, db.count("select count(*) from payment_audit where order_id = ?", order));
        assertEquals(1, db.count("select count(*) from inbox_messages where consumer_name = 'orders' and message_id = ?", e2));
        assertEquals("CANCELLED", db.row("select status from orders where id = ?", order).get("status"));
        eventually().until(() -> queues.depth("orders.fifo") == 0);
    }

    @Test
    void paymentBeforeCreationIsParkedThenAppliedWhenTheGapFills() {
        String order = unique("ord");
        String createdId = unique("evt"), paidId = unique("evt");
        // The producer swapped the two: the article's sequencing code would drop ORDER_PAID here.
        queues.send("orders.fifo", order, paid(paidId, order, 2L, 2500));
        eventually().until(() -> "PARKED".equals(db.inboxStatus("orders", paidId)));
        assertEquals(0, db.count("select count(*) from orders where id = ?", order));
        eventually().until(() -> queues.depth("orders.fifo") == 0);

        queues.send("orders.fifo", order, created(createdId, order, 1L, 2500));
        eventually().until(() -> "PROCESSED".equals(db.inboxStatus("orders", paidId)));
        assertEquals("PROCESSED", db.inboxStatus("orders", createdId));
        assertEquals("PAID", db.row("select status from orders where id = ?", order).get("status"));
        assertEquals(1, db.count("select count(*) from payment_audit where order_id = ?", order));
        assertEquals(2L, db.count("select last_sequence from stream_state where consumer_name = 'orders' and aggregate_id = ?", order));
    }

    @Test
    void aLongGapDrainsInOrderAndALateCopyIsStale() {
        String order = unique("ord");
        String e1 = unique("evt"), e2 = unique("evt"), e3 = unique("evt"), late = unique("evt");
        queues.send("orders.fifo", order, shipped(e3, order, 3L));
        queues.send("orders.fifo", order, paid(e2, order, 2L, 700));
        eventually().until(() -> "PARKED".equals(db.inboxStatus("orders", e2)));
        queues.send("orders.fifo", order, created(e1, order, 1L, 700));
        eventually().until(() -> "PROCESSED".equals(db.inboxStatus("orders", e3)));
        assertEquals("SHIPPED", db.row("select status from orders where id = ?", order).get("status"));

        // Another producer's copy of the creation, with its own event id: old news.
        queues.send("orders.fifo", order, created(late, order, 1L, 700));
        eventually().until(() -> "STALE".equals(db.inboxStatus("orders", late)));
        assertEquals("SHIPPED", db.row("select status from orders where id = ?", order).get("status"));
        assertTrue(((String) db.row("select error_text from inbox_messages where message_id = ?", late)
                .get("error_text")).contains("last applied 3"));
    }

    @Test
    void paymentAfterCancellationIsRejectedWithItsReasonAndChangesNothing() {
        String order = unique("ord");
        String c = unique("evt"), x = unique("evt"), p = unique("evt");
        queues.send("orders.fifo", order, created(c, order, 1L, 1000));
        queues.send("orders.fifo", order, cancelled(x, order, 2L));
        queues.send("orders.fifo", order, paid(p, order, 3L, 1000));

        eventually().until(() -> "REJECTED".equals(db.inboxStatus("orders", p)));
        Map<String, Object> entry = db.row("select error_text, processed_at from inbox_messages where message_id = ?", p);
        assertTrue(((String) entry.get("error_text")).contains("not allowed for order " + order + " in status CANCELLED"),
                entry.toString());
        Map<String, Object> row = db.row("select status, paid_amount from orders where id = ?", order);
        assertEquals("CANCELLED", row.get("status"));
        assertEquals(null, row.get("paid_amount"));
        assertEquals(0, db.count("select count(*) from payment_audit where order_id = ?", order));
        // A rejection consumes its sequence number: the stream does not stall behind it.
        assertEquals(3L, db.count("select last_sequence from stream_state where aggregate_id = ?", order));
        eventually().until(() -> queues.depth("orders.fifo") == 0);
    }

    @Test
    void aRejectedEventInsideADrainedGapDoesNotStallTheStream() {
        String order = unique("ord");
        String c = unique("evt"), s = unique("evt"), x = unique("evt");
        // SHIPPED(2) before PAID is not allowed; CANCELLED(3) after it is.
        queues.send("orders.fifo", order, cancelled(x, order, 3L));
        queues.send("orders.fifo", order, shipped(s, order, 2L));
        eventually().until(() -> "PARKED".equals(db.inboxStatus("orders", s)));
        queues.send("orders.fifo", order, created(c, order, 1L, 1000));

        eventually().until(() -> "PROCESSED".equals(db.inboxStatus("orders", x)));
        assertEquals("REJECTED", db.inboxStatus("orders", s));
        assertEquals("CANCELLED", db.row("select status from orders where id = ?", order).get("status"));
    }

    @Test
    void aSecondPaymentIsRejectedAndEachAppliedPaymentHasExactlyOneAuditRow() {
        String order = unique("ord");
        String c = unique("evt"), p1 = unique("evt"), p2 = unique("evt");
        queues.send("orders.fifo", order, created(c, order, null, 300));
        eventually().until(() -> "PROCESSED".equals(db.inboxStatus("orders", c)));
        queues.send("orders.fifo", order, paid(p1, order, null, 300));
        queues.send("orders.fifo", order, paid(p1, order, null, 300));
        queues.send("orders.fifo", order, paid(p2, order, null, 300));

        eventually().until(() -> "REJECTED".equals(db.inboxStatus("orders", p2)));
        assertEquals(1, db.count("select count(*) from payment_audit where order_id = ?", order));
        assertEquals(1, db.count("select count(*) from payment_audit where message_id = ?", p1));
        assertEquals(300L, db.count("select paid_amount from orders where id = ?", order));
    }

    @Test
    void aReSentEventWithAnotherPayloadIsAConflictAndTheRecordStays() {
        String order = unique("ord");
        String c = unique("evt");
        queues.send("orders.fifo", order, created(c, order, 1L, 500));
        eventually().until(() -> "PROCESSED".equals(db.inboxStatus("orders", c)));
        String recordedHash = (String) db.row("select payload_hash from inbox_messages where message_id = ?", c)
                .get("payload_hash");

        double conflicts = Metrics.outcomes("orders", "conflict");
        queues.send("orders.fifo", order, created(c, order, 1L, 999));
        eventually().until(() -> Metrics.outcomes("orders", "conflict") == conflicts + 1);
        eventually().until(() -> queues.depth("orders.fifo") == 0);
        assertEquals(500L, db.count("select amount from orders where id = ?", order));
        assertEquals(recordedHash, db.row("select payload_hash from inbox_messages where message_id = ?", c)
                .get("payload_hash"));
    }
}
