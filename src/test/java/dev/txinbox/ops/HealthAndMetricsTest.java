package dev.txinbox.ops;

import static dev.txinbox.support.Events.created;
import static dev.txinbox.support.Events.shipped;
import static dev.txinbox.support.Events.unique;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.txinbox.messaging.sqs.SqsQueues;

import dev.txinbox.support.Metrics;
import dev.txinbox.support.ServiceTest;
import io.quarkus.test.junit.QuarkusTest;

/** What an operator and Prometheus see: health with the inbox's numbers, and the metric names of the contract. */
@QuarkusTest
class HealthAndMetricsTest extends ServiceTest {

    @Inject
    SqsQueues sqsQueues;

    @Test
    void livenessAndReadinessReportTheConsumerLoopAndTheInboxNumbers() {
        given().get("/q/health/live").then().statusCode(200)
                .body("checks.find { it.name == 'consumer-loop' }.status", equalTo("UP"))
                .body("checks.find { it.name == 'consumer-loop' }.data.'orders.secondsSinceProgress'", notNullValue());
        // Each of the channel's two receive loops is watched on its own.
        eventually().until(() -> given().get("/q/health/live").then().extract()
                .<Map<String, Object>> path("checks.find { it.name == 'consumer-loop' }.data").keySet()
                .containsAll(List.of("orders.loop.1.secondsSincePoll", "orders.loop.2.secondsSincePoll")));

        String order = unique("ord"), early = unique("evt");
        queues.send("orders.fifo", order, shipped(early, order, 3L));
        eventually().until(() -> "PARKED".equals(db.inboxStatus("orders", early)));
        eventually().until(() -> given().get("/q/health/ready").then().extract()
                .<Integer> path("checks.find { it.name == 'inbox-lag' }.data.'orders.parked'") >= 1);
        given().get("/q/health/ready").then().statusCode(200)
                .body("checks.find { it.name == 'inbox-lag' }.status", equalTo("UP"))
                .body("checks.find { it.name == 'inbox-lag' }.data.'orders.lagSeconds'", notNullValue())
                .body("checks.find { it.name == 'inbox-lag' }.data.'orders.backlog'", notNullValue())
                .body("checks.find { it.name == 'inbox-lag' }.data.'orders.oldestParkedAgeSeconds'", notNullValue())
                .body("checks.find { it.name == 'inbox-lag' }.data.'orders.failed'", notNullValue())
                .body("checks.find { it.name == 'sqs' }.status", equalTo("UP"))
                .body("checks.find { it.name == 'Database connections health check' }.status", equalTo("UP"));
    }

    @Test
    void theContractsMetricNamesAreExposedAndTheDashboardUsesNoOther() throws IOException {
        String order = unique("ord"), first = unique("evt"), early = unique("evt");
        queues.send("orders.fifo", order, created(first, order, 1L, 100));
        queues.send("orders.fifo", order, shipped(early, order, 5L));
        eventually().until(() -> Metrics.outcomes("orders", "parked") >= 1 && Metrics.outcomes("orders", "processed") >= 1);
        eventually().until(() -> Metrics.scrape().contains("txinbox_parked_messages{consumer=\"orders\"}"));
        String scrape = Metrics.scrape();
        for (String name : new String[] { "txinbox_messages_total{", "txinbox_processing_seconds_bucket{",
                "txinbox_lag_seconds{", "txinbox_parked_messages{", "txinbox_backlog_messages{",
                "txinbox_dlq_messages{", "txinbox_failed_messages{", "txinbox_oldest_pending_seconds{" }) {
            assertTrue(scrape.contains(name), name + " missing from /q/metrics");
        }

        Set<String> exposed = names(scrape, Pattern.compile("^(txinbox_[a-z_]+)", Pattern.MULTILINE));
        String dashboard = Files.readString(Path.of("docs/grafana-dashboard.json"));
        Set<String> used = names(dashboard, Pattern.compile("(txinbox_[a-z_]+)"));
        used.removeIf(name -> exposed.contains(name) || exposed.contains(name.replaceAll("_(bucket|count|sum)$", "")));
        assertTrue(used.isEmpty(), "the dashboard uses metrics the service does not expose: " + used);
    }

    @Test
    void everyCounterOfEveryConsumerExistsFromTheFirstScrape() {
        // The ledger consumer never sees most outcomes in these tests, and retention never ran: the series
        // must exist all the same, or rate() and the shipped alerts have nothing to work on.
        String scrape = Metrics.scrape();
        for (String consumer : new String[] { "orders", "ledger" }) {
            for (String outcome : new String[] { "processed", "duplicate", "conflict", "stale", "parked", "rejected",
                    "retried", "dead_lettered" }) {
                String series = "txinbox_messages_total{consumer=\"" + consumer + "\",outcome=\"" + outcome + "\"}";
                assertTrue(scrape.contains(series), series + " missing");
            }
            for (String counter : new String[] { "txinbox_retention_deleted_total", "txinbox_held_back_total",
                    "txinbox_expired_total", "txinbox_ack_failures_total" }) {
                assertTrue(scrape.contains(counter + "{consumer=\"" + consumer + "\"}"), counter + " of " + consumer + " missing");
            }
        }
        assertTrue(scrape.contains("txinbox_retention_runs_total{result=\"completed\"}"));
    }

    @Test
    void aConsumerSwitchedOffByDefaultIsNeitherWatchedNorCounted() {
        // The notifications consumer ships switched off: no channel, so nothing to watch or count.
        assertFalse(Metrics.scrape().contains("consumer=\"notifications\""));
        given().get("/q/health/live").then().statusCode(200)
                .body("checks.find { it.name == 'consumer-loop' }.data.'notifications.secondsSinceProgress'", nullValue());
        given().get("/q/health/ready").then().statusCode(200)
                .body("checks.find { it.name == 'inbox-lag' }.data.'notifications.backlog'", nullValue());
    }

    @Test
    void theQueuesRedrivePolicyIsReadAsTheStartUpCheckReadsIt() {
        // The test queues move a message to their DLQ after 10 receives: comfortable for 5 attempts.
        assertTrue(sqsQueues.maxReceiveCount("orders.fifo").orElseThrow() == 10);
    }

    private static Set<String> names(String text, Pattern pattern) {
        Set<String> names = new TreeSet<>();
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }
}
