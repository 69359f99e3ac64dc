package dev.txinbox.messaging;

import static dev.txinbox.support.Events.created;
import static dev.txinbox.support.Events.paid;
import static dev.txinbox.support.Events.shipped;
import static dev.txinbox.support.Events.unique;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import jakarta.inject.Inject;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import dev.txinbox.support.ElasticMqResource;
import dev.txinbox.support.Metrics;
import dev.txinbox.support.ServiceTest;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Outages of the two servers txinbox depends on, for real: the local PostgreSQL is stopped and
 * started again, the broker is stopped and started again, while messages flow.
 */
@QuarkusTest
class OutageTest extends ServiceTest {

    @Inject
    DatabaseGate gate;

    @Test
    void aDatabaseOutageMidStreamLosesNothingDoublesNothingAndBurnsNoAttempts() throws Exception {
        String cluster = postgresCluster();
        List<String> orders = Stream.generate(() -> unique("ord")).limit(10).toList();
        List<String> events = new ArrayList<>();
        for (String order : orders) {
            String e = unique("evt");
            events.add(e);
            queues.send("orders.fifo", order, created(e, order, 1L, 1000));
        }
        eventually().until(() -> db.count("select count(*) from orders where id = any(?)", (Object) orders.toArray(String[]::new)) >= 3);

        double retriedBefore = Metrics.outcomes("orders", "retried");
        pg(cluster, "stop", "-m", "fast");
        try {
            for (String order : orders) {
                String p = unique("evt"), s = unique("evt");
                events.add(p);
                events.add(s);
                queues.send("orders.fifo", order, paid(p, order, 2L, 1000));
                queues.send("orders.fifo", order, shipped(s, order, 3L));
            }
            // The first worker to meet the outage closes the gate, and it stays closed while the database is
            // down and messages keep coming: for twice the tests' visibility timeout, long enough that messages
            // cycling through the queue would show in the receive counts checked below.
            eventually().until(() -> !gate.isOpen());
            Awaitility.await().during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(250)).until(() -> !gate.isOpen());
        } finally {
            pg(cluster, "start");
        }

        Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                .until(() -> db.count("select count(*) from orders where id = any(?) and status = 'SHIPPED'",
                        (Object) orders.toArray(String[]::new)) == orders.size());
        String[] ids = events.toArray(String[]::new);
        assertEquals(orders.size(), db.count("select count(*) from payment_audit where order_id = any(?)",
                (Object) orders.toArray(String[]::new)));
        assertEquals(events.size(), db.count("select count(*) from inbox_messages where message_id = any(?)"
                + " and status = 'PROCESSED'", (Object) ids));
        // The outage was not the messages' fault: no attempt was counted, none was dead-lettered.
        assertEquals(events.size(), db.count("select count(*) from inbox_messages where message_id = any(?)"
                + " and attempt_count = 1", (Object) ids));
        assertEquals(0, db.count("select count(*) from inbox_attempts where message_id = any(?)", (Object) ids));
        // Consumption paused instead of cycling messages through the queue: only the messages already
        // in a transaction when the database went away (one per worker) were sent back.
        double retried = Metrics.outcomes("orders", "retried") - retriedBefore;
        assertTrue(retried <= 8, retried + " messages were sent back during the outage");
        long maxReceives = db.count("select max(receive_count) from inbox_messages where message_id = any(?)", (Object) ids);
        assertTrue(maxReceives <= 3, "a message was received " + maxReceives + " times");
        eventually().until(() -> queues.depth("orders.fifo") == 0);
        assertEquals(0, queues.depth("orders-dlq.fifo"));
    }

    @Test
    void aBrokerOutageIsReportedAndConsumptionResumesByItself() throws Exception {
        readiness(200);
        ElasticMqResource.stopBroker();
        try {
            Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(250))
                    .until(() -> sqsCheck().equals("DOWN"));
            // Down for a few polls of the consumer, and reported so all along.
            Awaitility.await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(250)).until(() -> sqsCheck().equals("DOWN"));
        } finally {
            ElasticMqResource.startBroker();
        }
        String order = unique("ord"), event = unique("evt");
        queues.send("orders.fifo", order, created(event, order, 1L, 100));
        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> "PROCESSED".equals(db.inboxStatus("orders", event)));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> sqsCheck().equals("UP"));
    }

    private static String sqsCheck() {
        return given().get("/q/health/ready").then().extract().path("checks.find { it.name == 'sqs' }.status");
    }

    private static void readiness(int status) {
        given().get("/q/health/ready").then().statusCode(status);
    }

    /** The Debian cluster of the local server; the scenario needs pg_ctlcluster and root, as CI has. */
    private static String postgresCluster() throws IOException {
        Path etc = Path.of("/etc/postgresql");
        Assumptions.assumeTrue(Files.isDirectory(etc) && Files.isExecutable(Path.of("/usr/bin/pg_ctlcluster")),
                "needs a local Debian PostgreSQL cluster");
        try (Stream<Path> versions = Files.list(etc)) {
            return versions.map(p -> p.getFileName().toString()).sorted().reduce((a, b) -> b).orElseThrow();
        }
    }

    private static void pg(String version, String... action) throws Exception {
        List<String> command = new ArrayList<>(List.of("pg_ctlcluster", "--skip-systemctl-redirect", version, "main"));
        command.addAll(List.of(action));
        Process process = new ProcessBuilder(command).inheritIO().start();
        assertEquals(0, process.waitFor(), "pg_ctlcluster " + String.join(" ", action));
    }
}
