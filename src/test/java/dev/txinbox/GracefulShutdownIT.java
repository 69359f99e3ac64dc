package dev.txinbox;

import static dev.txinbox.support.Events.created;
import static dev.txinbox.support.Events.paid;
import static dev.txinbox.support.Events.shipped;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.txinbox.support.ElasticMqResource;
import dev.txinbox.support.TestQueues;

/**
 * The packaged service (target/quarkus-app) as Kubernetes runs it: a stream is flowing, the pod gets
 * SIGTERM, a new one starts. It must stop within its grace period, and between the two nothing is
 * lost and nothing applied twice.
 */
class GracefulShutdownIT {

    private static final String DATABASE = System.getenv().getOrDefault("TXINBOX_TEST_DB", "txinbox_test") + "_it";
    private static final String JDBC = "jdbc:postgresql://127.0.0.1:5432/" + DATABASE;
    private static final int ORDERS = 400;

    private static final ElasticMqResource broker = new ElasticMqResource();
    private static String endpoint;

    @BeforeAll
    static void infrastructure() throws Exception {
        endpoint = broker.start().get("test.sqs-endpoint");
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", null);
                Statement s = c.createStatement()) {
            s.execute("drop database if exists " + DATABASE + " with (force)");
            s.execute("create database " + DATABASE + " owner txinbox");
        }
    }

    @AfterAll
    static void stopBroker() {
        broker.stop();
    }

    @Test
    void sigtermMidStreamThenRestartLosesNothingAndDoublesNothing() throws Exception {
        Process first = null;
        try (TestQueues queues = new TestQueues(endpoint)) {
            // The whole stream is queued first, so that SIGTERM surely lands in the middle of it.
            for (int i = 0; i < ORDERS; i++) {
                String order = "ord-it-" + i;
                queues.sendBatch("orders.fifo", order, List.of(created("c-" + i, order, 1L, 100 + i),
                        paid("p-" + i, order, 2L, 100 + i), shipped("s-" + i, order, 3L)));
            }
            first = start(1);
            await(Duration.ofSeconds(60), () -> count("select count(*) from inbox_messages") >= 20);

            long stopping = System.nanoTime();
            first.destroy(); // SIGTERM
            assertTrue(first.waitFor(30, TimeUnit.SECONDS), "the service did not stop within 30 s of SIGTERM");
            Duration took = Duration.ofNanos(System.nanoTime() - stopping);
            String log = Files.readString(Path.of("target/graceful-shutdown-1.log"));
            assertTrue(log.contains("txinbox stopped in"), "no orderly Quarkus shutdown in the log");
            // A rollout stops every pod: an ERROR there would page someone for nothing.
            // The packaged service logs JSON lines; plain text when told to.
            List<String> errors = log.lines()
                    .filter(line -> line.contains(" ERROR ") || line.contains("\"level\":\"ERROR\"")).toList();
            assertTrue(errors.isEmpty(), "the stop logged ERRORs:\n" + String.join("\n", errors));
            long processedBefore = count("select count(*) from inbox_messages where status = 'PROCESSED'");
            assertTrue(processedBefore < 3 * ORDERS, "the stream was over before SIGTERM; nothing was tested");

            Process second = start(2);
            try {
                await(Duration.ofSeconds(120), () -> count("select count(*) from orders where status = 'SHIPPED'") == ORDERS);
                assertEquals(ORDERS, count("select count(*) from payment_audit"));
                assertEquals(3L * ORDERS, count("select count(*) from inbox_messages where status = 'PROCESSED'"));
                assertEquals(0, count("select count(*) from inbox_messages where status in ('DEAD', 'FAILED')"));
                await(Duration.ofSeconds(30), () -> queues.depth("orders.fifo") == 0);
                assertEquals(0, queues.depth("orders-dlq.fifo"));
                System.out.printf("graceful shutdown: stopped in %d ms with %d of %d messages processed; the second"
                        + " instance finished the rest%n", took.toMillis(), processedBefore, 3 * ORDERS);
            } finally {
                second.destroy();
                second.waitFor(30, TimeUnit.SECONDS);
            }
        } finally {
            if (first != null) {
                first.destroyForcibly();
            }
        }
    }

    private static Process start(int instance) throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-jar", "target/quarkus-app/quarkus-run.jar")
                .redirectErrorStream(true).redirectOutput(new File("target/graceful-shutdown-" + instance + ".log"));
        builder.environment().putAll(Map.of(
                "QUARKUS_DATASOURCE_JDBC_URL", JDBC,
                "QUARKUS_SQS_ENDPOINT_OVERRIDE", endpoint,
                "AWS_ACCESS_KEY_ID", "test",
                "AWS_SECRET_ACCESS_KEY", "test",
                "QUARKUS_HTTP_PORT", Integer.toString(port),
                "TXINBOX_CONSUMERS_ORDERS_VISIBILITY_TIMEOUT", "5s",
                "MP_MESSAGING_INCOMING_ORDERS_WAIT_TIME_SECONDS", "1"));
        Process process = builder.start();
        HttpClient http = HttpClient.newHttpClient();
        await(Duration.ofSeconds(60), () -> {
            try {
                return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/health/ready")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
            } catch (Exception e) {
                assertTrue(process.isAlive(), "the service exited at start; see target/graceful-shutdown-" + instance + ".log");
                return false;
            }
        });
        return process;
    }

    private static long count(String sql) {
        try (Connection c = DriverManager.getConnection(JDBC, "txinbox", "txinbox");
                PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        } catch (Exception e) {
            throw new IllegalStateException(sql, e);
        }
    }

    private static void await(Duration atMost, BooleanSupplier condition) {
        Awaitility.await().atMost(atMost).pollInterval(Duration.ofMillis(200)).until(condition::getAsBoolean);
    }
}
