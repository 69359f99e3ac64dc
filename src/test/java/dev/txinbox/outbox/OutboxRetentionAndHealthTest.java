package dev.txinbox.outbox;

import static dev.txinbox.support.Events.unique;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.txinbox.support.Metrics;
import dev.txinbox.ops.metrics.OutboxStatistics;
import dev.txinbox.ops.retention.OutboxRetention;
import dev.txinbox.support.ServiceTest;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Retention keeps what is pending; the outbox's metrics and readiness check are there from the start, and readiness
 * shows whether the listener hears the other pods.
 */
@QuarkusTest
class OutboxRetentionAndHealthTest extends ServiceTest {

    @Inject
    OutboxRetention retention;

    @Inject
    OutboxStatistics statistics;

    @Inject
    EmbeddedRelay embedded;

    @Test
    void retentionDeletesOldPublishedAndSkippedEventsAndKeepsWhatIsPending() {
        String a = unique("agg");
        // Rows as the relay leaves them, recorded two days ago or just now. A pending old one belongs to no partition
        // the relay looks at (it sends nothing for the test's sake: its partition is out of range).
        UUID oldPublished = insert(a, 1, "now() - interval '2 days'", "now() - interval '2 days'", null, 0);
        UUID oldSkipped = insert(a, 2, "now() - interval '2 days'", null, "now() - interval '1 day'", 0);
        UUID oldPending = insert(a, 3, "now() - interval '2 days'", null, null, 999);
        UUID recentPublished = insert(a, 4, "now()", "now()", null, 0);

        assertTrue(retention.run() >= 2);
        assertEquals(0, db.count("select count(*) from outbox_events where id in (?, ?)", oldPublished, oldSkipped));
        assertEquals(2, db.count("select count(*) from outbox_events where id in (?, ?)", oldPending, recentPublished));
        db.execute("delete from outbox_events where aggregateid = '" + a + "'");
    }

    @Test
    void metricsAndTheReadinessCheckAreThereFromTheStart() {
        String scrape = Metrics.scrape();
        for (String series : new String[] { "txinbox_outbox_pending ", "txinbox_outbox_oldest_pending_seconds ",
                "txinbox_outbox_published_total ", "txinbox_outbox_waiting_streams ",
                "txinbox_outbox_failures_total{reason=\"unavailable\"}",
                "txinbox_outbox_failures_total{reason=\"configuration\"}",
                "txinbox_outbox_failures_total{reason=\"rejected\"}" }) {
            assertTrue(scrape.contains("\n" + series), series + " missing from\n" + scrape);
        }
        given().get("/q/health/ready").then()
                .body("checks.find { it.name == 'outbox' }.status", equalTo("UP"))
                .body("checks.find { it.name == 'outbox' }.data.pending", notNullValue())
                .body("checks.find { it.name == 'outbox' }.data.oldestPendingAgeSeconds", notNullValue())
                .body("checks.find { it.name == 'outbox' }.data.relay", equalTo("ok"));
    }

    @Test
    void pendingAndItsAgeAreCountedAndAnOldPendingEventTurnsReadinessDown() {
        String a = unique("agg");
        UUID stale = insert(a, 1, "now() - interval '1 hour'", null, null, 999);
        try {
            statistics.refresh();
            assertTrue(statistics.latest().pending() >= 1);
            assertTrue(statistics.latest().oldestPendingSeconds() >= 3600);
            given().get("/q/health/ready").then().statusCode(503)
                    .body("checks.find { it.name == 'outbox' }.status", equalTo("DOWN"));
            assertTrue(Metrics.scrape().contains("\ntxinbox_outbox_oldest_pending_seconds "));
        } finally {
            db.execute("delete from outbox_events where id = '" + stale + "'");
            statistics.refresh();
        }
        given().get("/q/health/ready").then().body("checks.find { it.name == 'outbox' }.status", equalTo("UP"));
    }

    @Test
    void readinessSaysWhetherTheListenerHearsTheOtherPodsAndItComesBackAfterItsConnectionIsCut() {
        OutboxListener listener = embedded.listener().orElseThrow();
        eventually().until(listener::listening);
        given().get("/q/health/ready").then()
                .body("checks.find { it.name == 'outbox' }.data.listener", equalTo("listening"));
        long cut = db.count("select count(pg_terminate_backend(pid)) from pg_stat_activity"
                + " where application_name = 'txinbox-outbox-listener' and datname = current_database()");
        assertEquals(1, cut, "the listener's session");
        eventually().pollInterval(Duration.ofMillis(10)).until(() -> !listener.listening());
        given().get("/q/health/ready").then()
                .body("checks.find { it.name == 'outbox' }.status", equalTo("UP"))
                .body("checks.find { it.name == 'outbox' }.data.listener", equalTo("reconnecting"));
        eventually().until(listener::listening);
        assertEquals(1, db.count("select count(*) from pg_stat_activity where application_name = 'txinbox-outbox-listener'"
                + " and datname = current_database()"));
        given().get("/q/health/ready").then()
                .body("checks.find { it.name == 'outbox' }.data.listener", equalTo("listening"));
    }

    private UUID insert(String aggregate, long sequence, String at, String publishedAt, String skippedAt, int partition) {
        UUID id = UUID.randomUUID();
        db.execute("insert into outbox_events (id, aggregatetype, aggregateid, type, timestamp, payload, sequence,"
                + " partition, published_at, skipped_at) values ('" + id + "', 'order', '" + aggregate + "', 'T', " + at
                + ", '{}', " + sequence + ", " + partition + ", " + publishedAt + ", " + skippedAt + ")");
        return id;
    }
}
