package dev.txinbox.outbox;

import static dev.txinbox.support.Events.unique;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.txinbox.ops.metrics.OutboxStatistics;
import dev.txinbox.ops.retention.OutboxRetention;
import dev.txinbox.support.Profiles;
import dev.txinbox.support.ServiceTest;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * With the relay off (Debezium publishes the table), events are still recorded, nothing marks them, readiness and
 * the gauges judge nothing, and retention deletes by age.
 */
@QuarkusTest
@TestProfile(Profiles.SwitchedOff.class)
class OutboxRelayDisabledTest extends ServiceTest {

    @Inject
    Outbox outbox;

    @Inject
    EmbeddedRelay embedded;

    @Inject
    OutboxRetention retention;

    @Inject
    OutboxStatistics statistics;

    @Test
    void eventsAreRecordedButNotPublishedAndNothingIsJudged() {
        assertTrue(embedded.relay().isEmpty(), "no relay runs");
        String a = unique("agg");
        UUID id = QuarkusTransaction.requiringNew().call(() -> outbox.record("order", a, "OrderAccepted", "{}"));
        assertEquals(1, db.count("select count(*) from outbox_events where id = ? and published_at is null", id));
        db.execute("update outbox_events set timestamp = now() - interval '2 days' where id = '" + id + "'");

        statistics.refresh();
        assertEquals(0, statistics.latest().pending());
        given().get("/q/health/ready").then()
                .body("checks.find { it.name == 'outbox' }.status", equalTo("UP"))
                .body("checks.find { it.name == 'outbox' }.data.relay", equalTo("disabled"));
        assertTrue(given().get("/q/metrics").then().extract().asString().contains("\ntxinbox_outbox_pending 0.0"));

        // Old enough, and never marked: deleted by age.
        assertTrue(retention.run() >= 1);
        assertEquals(0, db.count("select count(*) from outbox_events where id = ?", id));
    }
}
