package dev.txinbox.ops;

import static dev.txinbox.support.Events.created;
import static dev.txinbox.support.Events.ledger;
import static dev.txinbox.support.Events.paid;
import static dev.txinbox.support.Events.shipped;
import static dev.txinbox.support.Events.unique;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasSize;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.txinbox.support.LedgerConsumer;
import dev.txinbox.support.Metrics;
import dev.txinbox.support.ServiceTest;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.specification.RequestSpecification;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/** The operator API: secured, validated, and its repairs are themselves idempotent and audited. */
@QuarkusTest
class AdminApiTest extends ServiceTest {

    private static RequestSpecification admin() {
        return given().header("Authorization", "Bearer test-admin-token");
    }

    @Test
    void everyAdminCallNeedsTheBearerToken() {
        for (String path : new String[] { "/admin/stats", "/admin/inbox", "/admin/inbox/orders/x" }) {
            given().get(path).then().statusCode(401).header("WWW-Authenticate", "Bearer");
            given().header("Authorization", "Bearer wrong").get(path).then().statusCode(401)
                    .body("error", equalTo("wrong bearer token"));
        }
        given().post("/admin/inbox/orders/x/replay").then().statusCode(401);
        given().post("/admin/dlq/orders/redrive").then().statusCode(401);
        given().header("Authorization", "Basic dGVzdA==").post("/admin/streams/orders/o/release").then().statusCode(401);
        admin().get("/admin/stats").then().statusCode(200);
    }

    @Test
    void inputIsValidated() {
        admin().get("/admin/inbox?size=500").then().statusCode(400).body("error", containsString("size"));
        admin().get("/admin/inbox?page=-1").then().statusCode(400);
        admin().get("/admin/inbox?status=DONE").then().statusCode(400).body("error", containsString("PROCESSED"));
        admin().get("/admin/inbox?from=yesterday").then().statusCode(400).body("error", containsString("ISO-8601"));
        admin().get("/admin/inbox/orders/" + "x".repeat(201)).then().statusCode(400);
        admin().post("/admin/dlq/orders/redrive?max=0").then().statusCode(400);
        admin().post("/admin/inbox/nobody/x/replay").then().statusCode(404);
        admin().get("/admin/inbox/orders/no-such-event").then().statusCode(404);
    }

    @Test
    void hostileInputGetsA4xxWithAJsonProblemNeverA500() {
        String[] gets = { "/admin/inbox?page=abc", "/admin/inbox?size=1e3", "/admin/inbox?page=99999999&size=200",
                "/admin/inbox?page=2147483647", "/admin/inbox?size=-5", "/admin/inbox?consumer=" + "c".repeat(300),
                "/admin/inbox/orders/a%2Fb", "/admin/inbox/orders/a.b..c", "/admin/inbox/orders/%E2%9C%93-caf%C3%A9",
                "/admin/inbox/orders/" + "x".repeat(10_000), "/admin/inbox/nobody/x", "/admin/no-such-thing",
                "/admin/inbox?aggregateId=%00" };
        for (String path : gets) {
            // Sent as written: %2F is a slash inside the id, %00 a NUL, and so on.
            var response = admin().urlEncodingEnabled(false).body("{\"ignored\":true}").get(path).then().extract();
            assertTrue(response.statusCode() >= 400 && response.statusCode() < 500, path + " -> " + response.statusCode());
            assertTrue(response.contentType().startsWith("application/json"), path + " -> " + response.contentType());
            assertTrue(response.body().jsonPath().getString("error") != null, path + " -> " + response.body().asString());
        }
        for (String path : new String[] { "/admin/dlq/orders/redrive?max=abc", "/admin/dlq/orders/redrive?max=5000",
                "/admin/dlq/nobody/redrive", "/admin/streams/orders/" + "y".repeat(10_000) + "/release",
                "/admin/inbox/orders/%F0%9F%92%A5/replay" }) {
            var response = admin().urlEncodingEnabled(false).post(path).then().extract();
            assertTrue(response.statusCode() >= 400 && response.statusCode() < 500, path + " -> " + response.statusCode());
            assertTrue(response.body().jsonPath().getString("error") != null, path + " -> " + response.body().asString());
        }
    }

    @Test
    void failedSignInsAreCountedAndLoggedWithoutTheToken() {
        double before = Metrics.value("txinbox_admin_auth_failures_total", "reason", "wrong_token");
        given().header("Authorization", "Bearer not-the-token-s3cr3t").get("/admin/stats").then().statusCode(401);
        assertEquals(before + 1, Metrics.value("txinbox_admin_auth_failures_total", "reason", "wrong_token"));
        given().get("/admin/stats").then().statusCode(401);
        assertTrue(Metrics.value("txinbox_admin_auth_failures_total", "reason", "missing_token") >= 1);
    }

    @Test
    void entriesCanBeListedByFilterAndReadWithTheirAttemptHistory() {
        String group = unique("grp"), event = unique("evt");
        queues.send("ledger.fifo", group, ledger(event, group, "{\"failTimes\":1}"));
        eventually().until(() -> "PROCESSED".equals(db.inboxStatus(LedgerConsumer.CONSUMER, event)));

        admin().get("/admin/inbox?consumer=ledger&aggregateId=" + group + "&status=processed").then().statusCode(200)
                .body("items", hasSize(1)).body("items[0].messageId", equalTo(event))
                .body("items[0].attempts", equalTo(2)).body("hasMore", equalTo(false));
        admin().get("/admin/inbox?consumer=ledger&status=PARKED&aggregateId=" + group).then().body("items", hasSize(0));
        admin().get("/admin/inbox?consumer=ledger&size=1&from=2020-01-01T00:00:00Z").then().statusCode(200)
                .body("items", hasSize(1)).body("hasMore", equalTo(true));
        admin().get("/admin/inbox/ledger/" + event).then().statusCode(200)
                .body("entry.status", equalTo("PROCESSED"))
                .body("payload", containsString("failTimes"))
                .body("attemptHistory", hasSize(1))
                .body("attemptHistory[0].error", containsString("scripted failure 1"));
    }

    @Test
    void aReplayOfAProcessedEntryIsADuplicateAndADeadOneIsAppliedAgain() {
        String order = unique("ord"), c = unique("evt");
        queues.send("orders.fifo", order, created(c, order, 1L, 100));
        eventually().until(() -> "PROCESSED".equals(db.inboxStatus("orders", c)));
        admin().post("/admin/inbox/orders/" + c + "/replay").then().statusCode(200)
                .body("outcome", equalTo("duplicate")).body("statusNow", equalTo("PROCESSED"));
        assertEquals(1, db.count("select count(*) from orders where id = ?", order));

        // A payment that failed for good (the ledger consumer gives up after 3 attempts) ...
        String group = unique("grp"), event = unique("evt");
        queues.send("ledger.fifo", group, ledger(event, group, "{\"failTimes\":3}"));
        eventually().until(() -> "DEAD".equals(db.inboxStatus(LedgerConsumer.CONSUMER, event)));
        // ... is replayed once the cause is gone (the handler fails only three times).
        admin().post("/admin/inbox/ledger/" + event + "/replay").then().statusCode(200)
                .body("outcome", equalTo("processed")).body("statusNow", equalTo("PROCESSED"));
        admin().post("/admin/inbox/ledger/" + event + "/replay").then().statusCode(200)
                .body("outcome", equalTo("duplicate"));
        assertEquals(1, db.count("select count(*) from ledger_entries where event_id = ?", event));
        assertEquals(2, db.count("select count(*) from admin_audit where action = 'replay' and target = ?"
                + " and actor = 'admin api'", event));
    }

    @Test
    void theDeadLetterQueueCanBeRedrivenKeepingGroupAndEventId() {
        String order = unique("ord"), bad = unique("evt");
        String body = "{\"eventId\":\"" + bad + "\",\"type\":\"ORDER_CREATED\",\"aggregateId\":\"" + order
                + "\",\"payload\":{\"customerId\":\"c\",\"amount\":5,\"currency\":\"EURO\"}}";
        String firstCopy = queues.send("orders.fifo", order, body);
        eventually().until(() -> "DEAD".equals(db.inboxStatus("orders", bad)));
        eventually().until(() -> queues.depth("orders-dlq.fifo") >= 1);

        int moved = admin().post("/admin/dlq/orders/redrive?max=1000").then().statusCode(200).extract().path("moved");
        assertTrue(moved >= 1);
        // Back in the source queue as a new SQS message, it is taken again under the same event id (still
        // invalid, so dead-lettered again, into the same group).
        eventually().until(() -> !firstCopy.equals(db.row("select source_message_id from inbox_messages"
                + " where consumer_name = 'orders' and message_id = ?", bad).get("source_message_id")));
        eventually().until(() -> queues.drain("orders-dlq.fifo").stream().anyMatch(m -> m.body().equals(body)
                && order.equals(m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID))));
        assertEquals(1, db.count("select count(*) from admin_audit where action = 'redrive' and outcome like 'moved%'"
                + " and at > now() - interval '1 minute'"));
    }

    @Test
    void aGapCanBeReleasedAndTheParkedEventsApplyInOrder() {
        String order = unique("ord");
        String c = unique("evt"), s = unique("evt");
        queues.send("orders.fifo", order, created(c, order, 1L, 100));
        // Sequence 2 (the payment) never comes; 3 waits for it.
        queues.send("orders.fifo", order, shipped(s, order, 3L));
        eventually().until(() -> "PARKED".equals(db.inboxStatus("orders", s)));

        admin().post("/admin/streams/orders/" + order + "/release").then().statusCode(200)
                .body("skippedFrom", equalTo(2)).body("skippedTo", equalTo(2)).body("lastAfter", equalTo(3));
        // Shipping an unpaid order breaks a business rule: the released event is rejected, not lost.
        assertEquals("REJECTED", db.inboxStatus("orders", s));
        admin().post("/admin/streams/orders/" + order + "/release").then().statusCode(409);
        assertEquals(1, db.count("select count(*) from admin_audit where action = 'release' and target = ?"
                + " and outcome = 'released'", order));

        // A late payment with sequence 2 is now stale: the operator chose to move on.
        String late = unique("evt");
        queues.send("orders.fifo", order, paid(late, order, 2L, 100));
        eventually().until(() -> "STALE".equals(db.inboxStatus("orders", late)));
    }

    @Test
    void aStreamWithTheLongestAggregateIdTheReaderAcceptsCanBeListedAndReleased() {
        // 512 characters: accepted by the reader (CONTRACT §1), so the operator must be able to name it too.
        String order = unique("ord") + "-" + "x".repeat(400);
        order = order + "y".repeat(512 - order.length());
        String group = unique("grp"), c = unique("evt"), s = unique("evt");
        queues.send("orders.fifo", group, created(c, order, 1L, 100));
        queues.send("orders.fifo", group, shipped(s, order, 3L));
        eventually().until(() -> "PARKED".equals(db.inboxStatus("orders", s)));

        admin().queryParam("consumer", "orders").queryParam("aggregateId", order).queryParam("status", "parked")
                .get("/admin/inbox").then().statusCode(200).body("items", hasSize(1))
                .body("items[0].messageId", equalTo(s));
        admin().post("/admin/streams/orders/" + order + "/release").then().statusCode(200)
                .body("skippedFrom", equalTo(2)).body("lastAfter", equalTo(3));
        assertEquals("REJECTED", db.inboxStatus("orders", s));
        // One character more is refused as the reader refuses it, with a JSON reason.
        admin().post("/admin/streams/orders/" + order + "z/release").then().statusCode(400)
                .body("error", equalTo("aggregateId must be 1-512 characters"));
    }

    @Test
    void statsCountEntriesByConsumerAndStatus() {
        String order = unique("ord"), c = unique("evt");
        queues.send("orders.fifo", order, created(c, order, 1L, 100));
        eventually().until(() -> "PROCESSED".equals(db.inboxStatus("orders", c)));
        Map<String, Object> stats = admin().get("/admin/stats").then().statusCode(200).extract().path("consumers.orders");
        assertEquals(db.count("select count(*) from inbox_messages where consumer_name = 'orders' and status = 'PROCESSED'"),
                ((Number) ((Map<?, ?>) stats.get("countsByStatus")).get("PROCESSED")).longValue());
        admin().get("/admin/stats").then().body("consumers.orders.health.consumer", equalTo("orders"))
                .body("consumers.keySet()", everyItem(org.hamcrest.Matchers.in(new String[] { "orders", "ledger" })));
    }
}
