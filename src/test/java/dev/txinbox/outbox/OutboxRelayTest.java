package dev.txinbox.outbox;

import static dev.txinbox.support.Events.unique;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.txinbox.inbox.EventParser;
import dev.txinbox.inbox.InboxEvent;
import dev.txinbox.ops.admin.AdminAudit;
import dev.txinbox.support.ElasticMqResource;
import dev.txinbox.support.JsonLogLines;
import dev.txinbox.support.Metrics;
import dev.txinbox.support.ServiceTest;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.specification.RequestSpecification;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/** The relay: recorded events reach order-events.fifo per aggregate in order, whatever fails on the way. */
@QuarkusTest
class OutboxRelayTest extends ServiceTest {

    @Inject
    Outbox outbox;

    @Inject
    EventParser parser;

    @Inject
    EmbeddedRelay embedded;

    private OutboxMessages published;

    @BeforeEach
    void collect() {
        published = new OutboxMessages(queues);
    }

    @Test
    void eventsReachTheQueueInAggregateOrderWithContractBodies() {
        String a = unique("agg"), b = unique("agg");
        List<UUID> ofA = new ArrayList<>();
        List<UUID> ofB = new ArrayList<>();
        // Several transactions, several events each, aggregates interleaved.
        QuarkusTransaction.requiringNew().run(() -> {
            ofA.add(outbox.record("order", a, "OrderAccepted", "{\"orderId\": \"" + a + "\", \"amount\": 7}"));
            ofB.add(outbox.record("order", b, "OrderAccepted", "{\"orderId\": \"" + b + "\"}"));
            ofA.add(outbox.record("order", a, "OrderPaid", "{\"orderId\": \"" + a + "\"}"));
        });
        for (int i = 0; i < 12; i++) {
            int n = i;
            QuarkusTransaction.requiringNew().run(() -> {
                ofA.add(outbox.record("order", a, "Step", "{\"n\": " + n + "}"));
                ofB.add(outbox.record("order", b, "Step", "{\"n\": " + n + "}"));
            });
        }
        eventually().until(() -> published.of(a).size() == ofA.size() && published.of(b).size() == ofB.size());

        List<Message> messages = published.of(a);
        for (int i = 0; i < messages.size(); i++) {
            Message message = messages.get(i);
            InboxEvent event = parser.parse(message.body(), null);
            assertEquals(ofA.get(i).toString(), event.eventId());
            assertEquals(a, event.aggregateId());
            assertEquals(i + 1L, event.sequence());
            assertNotNull(event.occurredAt());
            assertEquals(ofA.get(i).toString(), message.messageAttributes().get("event-id").stringValue());
            assertEquals(ofA.get(i).toString(),
                    message.attributes().get(MessageSystemAttributeName.MESSAGE_DEDUPLICATION_ID));
            assertEquals(a, message.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID));
        }
        InboxEvent first = parser.parse(messages.get(0).body(), null);
        assertEquals("OrderAccepted", first.type());
        assertEquals(7, first.payload().get("amount").asInt());
        assertEquals(IntStream.rangeClosed(1, ofB.size()).mapToObj(Long::valueOf).toList(),
                published.of(b).stream().map(m -> parser.parse(m.body(), null).sequence()).toList());
        eventually().until(() -> db.count("select count(*) from outbox_events where aggregateid in (?, ?)"
                + " and published_at is null", a, b) == 0);
    }

    @Test
    void anAggregateIdTooLongForAMessageGroupIsPublishedInAGroupOfItsHash() {
        // 512 characters, as the inbox accepts (CONTRACT §1); SQS takes group ids of at most 128.
        String a = unique("agg") + "-" + "x".repeat(400);
        String aggregate = a + "y".repeat(512 - a.length());
        UUID id = QuarkusTransaction.requiringNew().call(() -> outbox.record("order", aggregate, "Long", "{}"));
        String group = OutboxRelay.groupId(aggregate);
        assertTrue(group.startsWith("sha256-") && group.length() <= 128, group);
        eventually().until(() -> published.of(group).size() == 1);
        InboxEvent event = parser.parse(published.of(group).get(0).body(), null);
        assertEquals(aggregate, event.aggregateId());
        assertEquals(id.toString(), event.eventId());
    }

    @Test
    void twoRelaysShareThePartitionsAndNeverSendAnAggregateTwiceOrOutOfOrder() {
        OutboxRelay embeddedRelay = embedded.relay().orElseThrow();
        OutboxRelay second = embedded.newRelay("outbox-relay-test");
        second.start();
        try {
            // The embedded relay gives back its surplus; each ends with half, none with the same partition.
            eventually().until(() -> second.state().owned().size() == 8 && embeddedRelay.state().owned().size() == 8);
            Set<Integer> both = new HashSet<>(second.state().owned());
            both.retainAll(embeddedRelay.state().owned());
            assertTrue(both.isEmpty(), "owned by both: " + both);

            List<String> aggregates = IntStream.range(0, 24).mapToObj(i -> unique("agg")).toList();
            int perAggregate = 6;
            // Nothing else is on its way (what earlier tests recorded is out), so the counter counts only these.
            eventually().until(() -> db.count("select count(*) from outbox_events where published_at is null"
                    + " and skipped_at is null and attempts = 0") == 0);
            double before = publishedTotal();
            for (int round = 0; round < perAggregate; round++) {
                int n = round;
                QuarkusTransaction.requiringNew().run(() -> aggregates.forEach(
                        aggregate -> outbox.record("order", aggregate, "Step", "{\"n\": " + n + "}")));
                if (round == 3) {
                    // A pod goes away mid-stream: its partitions pass to the other, which goes on in order.
                    second.stop(Duration.ofSeconds(10));
                }
            }
            eventually().until(() -> aggregates.stream().allMatch(a -> published.of(a).size() >= perAggregate));
            for (String aggregate : aggregates) {
                assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L), published.of(aggregate).stream()
                        .map(m -> parser.parse(m.body(), null).sequence()).toList(), aggregate);
            }
            eventually().until(() -> embeddedRelay.state().owned().size() == 16);
            // Each event was sent once: two relays sending one aggregate would publish (and count) it twice.
            eventually().until(() -> db.count("select count(*) from outbox_events where aggregateid = any (?)"
                    + " and published_at is null", (Object) aggregates.toArray(String[]::new)) == 0);
            assertEquals(aggregates.size() * perAggregate, publishedTotal() - before, 0.0);
        } finally {
            second.stop(Duration.ofSeconds(10));
        }
    }

    @Test
    void anOversizedEventMakesOnlyItsAggregateWaitUntilAnOperatorSkipsIt() {
        String stuck = unique("agg"), other = unique("agg");
        String huge = "{\"blob\": \"" + "x".repeat(300_000) + "\"}";
        UUID[] ids = new UUID[3];
        try (JsonLogLines lines = JsonLogLines.of(OutboxRelay.class)) {
            QuarkusTransaction.requiringNew().run(() -> {
                ids[0] = outbox.record("order", stuck, "Huge", huge);
                ids[1] = outbox.record("order", stuck, "After", "{}");
                ids[2] = outbox.record("order", other, "Fine", "{}");
            });
            QuarkusTransaction.requiringNew().run(() -> outbox.record("order", other, "FineToo", "{}"));
            // The other aggregate goes on; the stuck one waits at its first event, with the reason.
            eventually().until(() -> published.of(other).size() == 2);
            eventually().until(() -> db.count("select attempts from outbox_events where id = ?", ids[0]) == 1);
            // The warning names the event in the MDC, as every line about a message does.
            eventually().until(() -> lines.first("refused", ids[0].toString()) != null);
            assertEquals(ids[0].toString(), lines.first("refused", ids[0].toString()).path("mdc").path("eventId")
                    .asText());
        }
        Map<String, Object> row = db.row("select last_error, next_attempt_at, published_at from outbox_events where id = ?",
                ids[0]);
        assertTrue(((String) row.get("last_error")).contains("exceeds the limit"), (String) row.get("last_error"));
        assertNotNull(row.get("next_attempt_at"));
        assertEquals(0, db.count("select count(*) from outbox_events where aggregateid = ? and published_at is not null",
                stuck));
        assertTrue(published.of(stuck).isEmpty());

        admin().get("/admin/outbox/streams").then().statusCode(200)
                .body("find { it.aggregateId == '" + stuck + "' }.eventId", equalTo(ids[0].toString()))
                .body("find { it.aggregateId == '" + stuck + "' }.sequence", equalTo(1))
                .body("find { it.aggregateId == '" + stuck + "' }.pendingBehind", equalTo(1))
                .body("find { it.aggregateId == '" + stuck + "' }.lastError", containsString("exceeds the limit"));
        admin().post("/admin/outbox/streams/" + other + "/retry").then().statusCode(409);

        // Retry: tried again at once (the next automatic attempt is far off in the tests), refused again.
        admin().post("/admin/outbox/streams/" + stuck + "/retry").then().statusCode(200)
                .body("event.attempts", equalTo(1));
        eventually().until(() -> db.count("select attempts from outbox_events where id = ?", ids[0]) == 2);

        // Skip: the event is never sent, the aggregate's next one goes.
        admin().post("/admin/outbox/streams/" + stuck + "/skip").then().statusCode(200)
                .body("event.eventId", equalTo(ids[0].toString()));
        eventually().until(() -> published.of(stuck).size() == 1);
        assertEquals(ids[1].toString(), parser.parse(published.of(stuck).get(0).body(), null).eventId());
        assertNotNull(db.row("select skipped_at from outbox_events where id = ?", ids[0]).get("skipped_at"));
        assertEquals(1, db.count("select count(*) from admin_audit where action = 'outbox-skip' and target = ?"
                + " and outcome = 'skipped'", stuck));
        assertEquals(1, db.count("select count(*) from admin_audit where action = 'outbox-retry' and target = ?"
                + " and outcome = 'retried'", stuck));
        admin().post("/admin/outbox/streams/" + stuck + "/skip").then().statusCode(409);
        given().post("/admin/outbox/streams/" + stuck + "/skip").then().statusCode(401);
    }

    @Test
    void aSkipWhoseAuditLineCannotBeWrittenDoesNotHappen() {
        String stuck = unique("agg");
        UUID[] ids = waitingStream(outbox, stuck);
        db.execute("create or replace function refuse_audit() returns trigger language plpgsql"
                + " as $$ begin raise exception 'the audit is unavailable'; end $$");
        db.execute("drop trigger if exists refuse_audit on admin_audit");
        db.execute("create trigger refuse_audit before insert on admin_audit for each row execute function refuse_audit()");
        try (JsonLogLines lines = JsonLogLines.of(AdminAudit.class)) {
            try {
                admin().post("/admin/outbox/streams/" + stuck + "/skip").then().statusCode(500);
            } finally {
                db.execute("drop trigger refuse_audit on admin_audit");
                db.execute("drop function refuse_audit()");
            }
            // Neither the skip nor a line about it, in the table or the log: the stream still waits at its event.
            assertNull(db.row("select skipped_at from outbox_events where id = ?", ids[0]).get("skipped_at"));
            assertEquals(0, db.count("select count(*) from admin_audit where target = ?", stuck));
            assertNull(lines.first("outbox-skip", stuck));
            admin().get("/admin/outbox/streams").then().statusCode(200)
                    .body("find { it.aggregateId == '" + stuck + "' }.eventId", equalTo(ids[0].toString()));
            assertTrue(published.of(stuck).isEmpty());

            // With the audit back, the same skip goes through, and says so.
            admin().post("/admin/outbox/streams/" + stuck + "/skip").then().statusCode(200);
            assertNotNull(lines.first("outbox-skip", stuck, "skipped"));
        }
        eventually().until(() -> published.of(stuck).size() == 1);
        assertEquals(ids[1].toString(), parser.parse(published.of(stuck).get(0).body(), null).eventId());
        assertEquals(1, db.count("select count(*) from admin_audit where action = 'outbox-skip' and target = ?"
                + " and outcome = 'skipped'", stuck));
    }

    @Test
    void aMissingQueueTurnsReadinessDownWithTheReasonAndPublishingResumesWhenItIsBack() {
        String a = unique("agg");
        double configurationFailures = Metrics.value("txinbox_outbox_failures_total", "reason", "configuration");
        queues.deleteQueue(ElasticMqResource.ORDER_EVENTS);
        try {
            UUID id = QuarkusTransaction.requiringNew().call(() -> outbox.record("order", a, "OrderAccepted", "{}"));
            eventually().until(() -> given().get("/q/health/ready").then().extract()
                    .<String> path("checks.find { it.name == 'outbox' }.status").equals("DOWN"));
            given().get("/q/health/ready").then().statusCode(503)
                    .body("checks.find { it.name == 'outbox' }.data.relay", equalTo("configuration"))
                    .body("checks.find { it.name == 'outbox' }.data.down", containsString("order-events.fifo"))
                    .body("checks.find { it.name == 'outbox' }.data.down", containsString("Queue"));
            assertTrue(Metrics.value("txinbox_outbox_failures_total", "reason", "configuration") > configurationFailures);
            // No attempt counted: the event is not at fault.
            assertEquals(0, db.count("select attempts from outbox_events where id = ?", id));
        } finally {
            queues.createFifo(ElasticMqResource.ORDER_EVENTS, 30, null);
        }
        eventually().atMost(Duration.ofSeconds(60)).until(() -> published.of(a).size() == 1);
        eventually().until(() -> "UP".equals(given().get("/q/health/ready").then().extract()
                .<String> path("checks.find { it.name == 'outbox' }.status")));
    }

    private static double publishedTotal() {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^txinbox_outbox_published_total(\\{[^}]*\\})? (\\S+)$",
                java.util.regex.Pattern.MULTILINE).matcher(Metrics.scrape());
        return m.find() ? Double.parseDouble(m.group(2)) : 0.0;
    }

    private static RequestSpecification admin() {
        return given().header("Authorization", "Bearer test-admin-token");
    }
}
