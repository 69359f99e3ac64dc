package dev.txinbox.orders;

import static dev.txinbox.support.Events.created;
import static dev.txinbox.support.Events.paid;
import static dev.txinbox.support.Events.shipped;
import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.txinbox.inbox.EventParser;
import dev.txinbox.inbox.InboxEvent;
import dev.txinbox.support.ElasticMqResource;
import dev.txinbox.support.ServiceTest;
import io.quarkus.test.junit.QuarkusTest;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * The two halves chained: an order event consumed through the inbox records the downstream event in the same
 * transaction, and the relay publishes it to order-events.fifo, once.
 */
@QuarkusTest
class OrderOutboxTest extends ServiceTest {

    @Inject
    EventParser parser;

    private final List<Message> downstream = new ArrayList<>();

    @Test
    void eachAppliedOrderEventPublishesItsDownstreamEventInOrder() {
        String order = unique("ord");
        String e1 = unique("evt"), e2 = unique("evt"), e3 = unique("evt");
        queues.send("orders.fifo", order, created(e1, order, 1L, 4999));
        queues.send("orders.fifo", order, paid(e2, order, 2L, 4999));
        // A redelivered copy is a duplicate: nothing applied, nothing published.
        queues.send("orders.fifo", order, paid(e2, order, 2L, 4999));
        queues.send("orders.fifo", order, shipped(e3, order, 3L));

        eventually().until(() -> downstreamOf(order).size() >= 3);
        List<InboxEvent> events = downstreamOf(order).stream().map(m -> parser.parse(m.body(), null)).toList();
        assertEquals(List.of("OrderAccepted", "OrderPaid", "OrderShipped"), events.stream().map(InboxEvent::type).toList());
        assertEquals(List.of(1L, 2L, 3L), events.stream().map(InboxEvent::sequence).toList());
        assertEquals(List.of(e1, e2, e3), events.stream().map(e -> e.payload().get("causedBy").asText()).toList());
        assertEquals(4999, events.get(1).payload().get("paidAmount").asLong());
        assertEquals("SHIPPED", events.get(2).payload().get("status").asText());
        assertEquals(3, db.count("select count(*) from outbox_events where aggregateid = ?", order));
        // Nothing more comes for the duplicate: the inbox settled every message and the relay published all.
        eventually().until(() -> queues.depth("orders.fifo") == 0);
        eventually().until(() -> db.count("select count(*) from outbox_events where aggregateid = ? and published_at"
                + " is null", order) == 0);
        assertEquals(3, downstreamOf(order).size());
    }

    @Test
    void aBatchThatRunsAgainPublishesItsEventsOnce() {
        String order = unique("ord");
        String e1 = unique("evt");
        // The first write of this order's outbox event fails as a serialization failure would: the inbox runs the
        // batch again, which records the event again; only the committed pass's event may reach the queue.
        db.execute("create sequence if not exists outbox_fail_once");
        db.execute("""
                create or replace function outbox_fail_once() returns trigger language plpgsql as $$
                begin
                  if new.aggregateid = '%s' and nextval('outbox_fail_once') = 1 then
                    raise exception 'injected serialization failure' using errcode = '40001';
                  end if;
                  return new;
                end $$""".formatted(order));
        db.execute("create trigger outbox_fail_once before insert on outbox_events for each row"
                + " execute function outbox_fail_once()");
        try {
            queues.send("orders.fifo", order, created(e1, order, 1L, 100));
            eventually().until(() -> "PROCESSED".equals(db.inboxStatus("orders", e1)));
            assertTrue(db.count("select last_value from outbox_fail_once") >= 2, "the batch ran only once");
        } finally {
            db.execute("drop trigger outbox_fail_once on outbox_events");
            db.execute("drop function outbox_fail_once()");
            db.execute("drop sequence outbox_fail_once");
        }
        eventually().until(() -> db.count("select count(*) from outbox_events where aggregateid = ? and published_at"
                + " is not null", order) == 1);
        assertEquals(1, db.count("select count(*) from outbox_events where aggregateid = ?", order));
        assertEquals(1, db.count("select last_sequence from outbox_sequences where aggregateid = ?", order));
        eventually().until(() -> downstreamOf(order).size() == 1);
        InboxEvent event = parser.parse(downstreamOf(order).get(0).body(), null);
        assertEquals("OrderAccepted", event.type());
        assertEquals(1L, event.sequence());
    }

    private List<Message> downstreamOf(String order) {
        for (Message message : queues.drain(ElasticMqResource.ORDER_EVENTS)) {
            downstream.add(message);
        }
        return downstream.stream()
                .filter(m -> order.equals(m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID))).toList();
    }
}
