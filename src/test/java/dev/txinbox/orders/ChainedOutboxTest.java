package dev.txinbox.orders;

import static dev.txinbox.support.Events.cancelled;
import static dev.txinbox.support.Events.created;
import static dev.txinbox.support.Events.paid;
import static dev.txinbox.support.Events.shipped;
import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.txinbox.notifications.OrderNotifications;
import dev.txinbox.support.ElasticMqResource;
import dev.txinbox.support.Metrics;
import dev.txinbox.support.Profiles;
import dev.txinbox.support.ServiceTest;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * The whole chain as one: order events go through the orders inbox, each applied one records its downstream event
 * with the order's change, the relay publishes it, and a consumer downstream reads it through an inbox of its own.
 * Every downstream effect must happen exactly once and per order in the order the orders were changed, whatever
 * the producer upstream re-sent or sent early, and a copy of a published event (as a relay restarted after its
 * send, outside the broker's deduplication window, would send) must change nothing downstream.
 */
@QuarkusTest
@TestProfile(Profiles.ChainTraced.class)
class ChainedOutboxTest extends ServiceTest {

    /**
     * The events that orders of other tests published (this scenario's order ids begin with "chain"): the boot is
     * shared with TracingTest, whose order goes down the chain too. Only those are left out of the counts below.
     */
    private static final String OTHER_TESTS_EVENTS = "select id::text from outbox_events where aggregateid not like 'chain%'";

    private record Order(String id, List<String> causes, List<String> types) {
    }

    @Test
    void everyDownstreamEffectHappensOnceAndInTheOrderTheOrdersChanged() {
        List<Order> orders = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            String order = unique("chain");
            String e1 = unique("evt"), e2 = unique("evt"), e3 = unique("evt");
            boolean cancel = i % 3 == 2;
            String last = cancel ? cancelled(e3, order, 3L) : shipped(e3, order, 3L);
            if (i % 4 == 1) {
                // Sent early: the payment before the order exists. Parked upstream until its predecessor comes.
                queues.send("orders.fifo", order, paid(e2, order, 2L, 1000 + i));
                queues.send("orders.fifo", order, created(e1, order, 1L, 1000 + i));
            } else {
                queues.send("orders.fifo", order, created(e1, order, 1L, 1000 + i));
                queues.send("orders.fifo", order, paid(e2, order, 2L, 1000 + i));
            }
            if (i % 2 == 0) {
                // Re-sent by the producer under a new deduplication id: a duplicate upstream, nothing downstream.
                queues.send("orders.fifo", order, paid(e2, order, 2L, 1000 + i));
            }
            queues.send("orders.fifo", order, last);
            orders.add(new Order(order, List.of(e1, e2, e3),
                    List.of("OrderAccepted", "OrderPaid", cancel ? "OrderCancelled" : "OrderShipped")));
        }

        eventually().until(() -> effects() == 3L * orders.size());
        for (Order order : orders) {
            assertEquals(order.types(), column("type", order.id()), "downstream effects of " + order.id());
            assertEquals(List.of("1", "2", "3"), column("sequence_no", order.id()), "sequences of " + order.id());
            assertEquals(order.causes(), column("caused_by", order.id()), "causes of " + order.id());
        }

        // A copy of a published event, under a new deduplication id: the downstream inbox knows its event id. The
        // relay builds a body from the row alone, so a copy it sends again is the same body, byte for byte.
        Order first = orders.get(0);
        String eventId = (String) db.rows("select id::text as id from outbox_events where aggregateid = ?"
                + " and sequence = 2", first.id()).get(0).get("id");
        String copy = (String) db.rows("select body from inbox_messages where consumer_name = ? and message_id = ?",
                OrderNotifications.CONSUMER, eventId).get(0).get("body");
        double duplicates = Metrics.outcomes(OrderNotifications.CONSUMER, "duplicate");
        queues.send(ElasticMqResource.CHAIN_EVENTS, first.id(), copy);
        eventually().until(() -> Metrics.outcomes(OrderNotifications.CONSUMER, "duplicate") > duplicates);
        eventually().until(() -> db.count("select count(*) from inbox_messages where consumer_name = ?"
                + " and status = 'PROCESSED' and message_id not in (" + OTHER_TESTS_EVENTS + ")",
                OrderNotifications.CONSUMER) == 3L * orders.size());

        assertEquals(3L * orders.size(), effects());
        assertEquals(0, db.count("select count(*) from (select event_id from order_notifications group by event_id"
                + " having count(*) > 1) d"));
        assertEquals(0, db.count("select count(*) from outbox_events where published_at is null"
                + " and aggregateid like 'chain%'"));
        assertEquals(0, db.count("select count(*) from inbox_messages where consumer_name = ? and status <> 'PROCESSED'"
                + " and message_id not in (" + OTHER_TESTS_EVENTS + ")", OrderNotifications.CONSUMER));
    }

    private long effects() {
        return db.count("select count(*) from order_notifications where order_id like 'chain%'");
    }

    private List<String> column(String column, String order) {
        return db.rows("select " + column + "::text as v from order_notifications where order_id = ? order by id", order)
                .stream().map(r -> (String) r.get("v")).toList();
    }
}
