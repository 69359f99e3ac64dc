package dev.txinbox;

import static dev.txinbox.support.Events.created;
import static dev.txinbox.support.Events.paid;
import static dev.txinbox.support.Events.shipped;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.awaitility.Awaitility;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import dev.txinbox.support.AwsStandIn;
import dev.txinbox.support.ElasticMqResource;
import dev.txinbox.support.TestQueues;

/**
 * The packaged service with its production credential settings, as EKS runs it: no keys anywhere, only what IRSA
 * (a role and a projected web identity token, exchanged at STS) or EKS Pod Identity (a container credentials endpoint
 * and its authorization token) give the pod. {@link AwsStandIn} plays STS, the Pod Identity agent and SQS's check of
 * the caller's keys in front of a real broker, so each scenario shows the messages consumed, and the outbox's events
 * published, with the credentials the stand-in handed out, and nothing else.
 */
class AwsCredentialsIT {

    private static final String DATABASE = System.getenv().getOrDefault("TXINBOX_TEST_DB", "txinbox_test") + "_aws";
    private static final String JDBC = "jdbc:postgresql://127.0.0.1:5432/" + DATABASE;
    private static final String ROLE = "arn:aws:iam::000000000000:role/txinbox";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ElasticMqResource broker = new ElasticMqResource();
    private static String brokerEndpoint;

    private AwsStandIn aws;
    private TestQueues queues;
    private Process service;
    private Path log;
    private int port;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void startBroker() {
        brokerEndpoint = broker.start().get("test.sqs-endpoint");
    }

    @AfterAll
    static void stopBroker() {
        broker.stop();
    }

    @BeforeEach
    void freshDatabaseAndQueues(TestInfo test) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", null);
                Statement s = c.createStatement()) {
            s.execute("drop database if exists " + DATABASE + " with (force)");
            s.execute("create database " + DATABASE + " owner txinbox");
        }
        // The broker keeps one set of queues for the class: each scenario starts on empty ones.
        ElasticMqResource.stopBroker();
        ElasticMqResource.startBroker();
        aws = new AwsStandIn(brokerEndpoint);
        queues = new TestQueues(brokerEndpoint);
        log = Path.of("target", "aws-credentials-" + test.getTestMethod().orElseThrow().getName() + ".log");
    }

    @AfterEach
    void stopAll() throws Exception {
        if (service != null) {
            service.destroy();
            if (!service.waitFor(30, TimeUnit.SECONDS)) {
                service.destroyForcibly();
            }
        }
        queues.close();
        aws.close();
    }

    @Test
    void irsaTheRoleStsGaveConsumesAndPublishes() throws Exception {
        Path token = webIdentityToken("irsa-token-" + UUID.randomUUID());
        start(irsa(token));

        sendOrders("irsa", 10);
        awaitShipped(10);
        await(Duration.ofSeconds(60), () -> queues.depth(ElasticMqResource.ORDER_EVENTS) == 30);

        assertFalse(aws.asked().isEmpty(), "STS was never asked");
        for (AwsStandIn.Asked asked : aws.asked()) {
            assertEquals(ROLE, asked.roleArn());
            assertEquals(Files.readString(token), asked.token(), "STS was not shown the projected token");
        }
        assertOnlyIssuedKeysUsed();
    }

    @Test
    void podIdentityTheAgentsCredentialsConsumeAndPublish() throws Exception {
        Path token = webIdentityToken("pod-identity-token-" + UUID.randomUUID());
        start(Map.of("AWS_CONTAINER_CREDENTIALS_FULL_URI", aws.endpoint() + AwsStandIn.POD_IDENTITY_PATH,
                "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", token.toString()));

        sendOrders("pod", 10);
        awaitShipped(10);
        await(Duration.ofSeconds(60), () -> queues.depth(ElasticMqResource.ORDER_EVENTS) == 30);

        assertFalse(aws.asked().isEmpty(), "the Pod Identity endpoint was never asked");
        for (AwsStandIn.Asked asked : aws.asked()) {
            assertEquals(Files.readString(token), asked.token(), "the agent was not shown the pod's token");
        }
        assertOnlyIssuedKeysUsed();
    }

    /**
     * Temporary credentials end; a pod runs for weeks. Here they last 80 s, so the SDK takes new ones all the time
     * (STS's hour, scaled down), and SQS refuses a key past its expiry: consumption and the relay go on across
     * the refreshes with no failure at all.
     */
    @Test
    void expiringCredentialsAreRenewedWithoutAFailure() throws Exception {
        aws.lifetime(Duration.ofSeconds(80));
        start(irsa(webIdentityToken("irsa-token-" + UUID.randomUUID())));

        int orders = 0;
        for (int wave = 0; wave < 5; wave++) {
            sendOrders("wave" + wave, 6);
            orders += 6;
            int shipped = orders;
            awaitShipped(shipped);
            Thread.sleep(4_000);
        }
        int events = 3 * orders;
        await(Duration.ofSeconds(60), () -> queues.depth(ElasticMqResource.ORDER_EVENTS) == events);

        assertTrue(aws.issued().size() >= 3, "credentials were renewed fewer than twice: " + aws.issued().size());
        assertTrue(aws.keysUsedFor("ReceiveMessage").size() >= 3, "receives used " + aws.keysUsedFor("ReceiveMessage"));
        assertTrue(aws.keysUsedFor("SendMessageBatch").size() >= 2,
                "the relay's sends used " + aws.keysUsedFor("SendMessageBatch"));
        assertOnlyIssuedKeysUsed();
        List<String> complaints = Files.readAllLines(log).stream()
                .filter(line -> line.contains(" WARN ") || line.contains(" ERROR ")).toList();
        assertTrue(complaints.isEmpty(), "the renewals were not silent:\n" + String.join("\n", complaints));
    }

    /** No credentials at all: a clear state, reported once; nothing is consumed and nothing lost. */
    @Test
    void noCredentialsIsReadinessDownWithTheReasonAndNothingMoves() throws Exception {
        start(Map.of());
        sendOrders("none", 3);

        await(Duration.ofSeconds(30), () -> sqsCheck().contains("\"cause\":\"credentials\""));
        assertTrue(sqsCheck().contains("none of the SDK's default providers is set up"), sqsCheck());
        Thread.sleep(8_000); // several polls' backoffs
        assertEquals(9, queues.depth("orders.fifo"), "the messages must wait in their queue");
        assertEquals(0, queues.depth("orders-dlq.fifo"));
        assertEquals(0, count("select count(*) from inbox_messages"), "no attempt is recorded for a credentials outage");
        assertEquals(1, lines("SQS cannot be called, no AWS credentials"), "said once, not once per poll");
        assertEquals(0, lines(" ERROR "));
    }

    /**
     * STS refuses IRSA's token (the role's trust policy, then an expired token), and then takes it again: readiness
     * names the provider and STS's answer, the log says each state once, the relay reports it too, nothing counts an
     * attempt, and everything resumes by itself.
     */
    @Test
    void stsRefusalsAreReportedOnceEachAndConsumptionResumes() throws Exception {
        aws.refuse("AccessDenied");
        start(irsa(webIdentityToken("irsa-token-" + UUID.randomUUID())));
        sendOrders("refused", 4);
        pendingOutboxEvent();

        await(Duration.ofSeconds(60), () -> sqsCheck().contains("Not authorized to perform sts:AssumeRoleWithWebIdentity")
                && outboxCheck().contains("\"relay\":\"credentials\""));
        assertTrue(sqsCheck().contains("WebIdentityTokenFileCredentialsProvider (IRSA) failed"), sqsCheck());
        assertTrue(sqsCheck().contains("\"cause\":\"credentials\""), sqsCheck());
        assertTrue(outboxCheck().contains("\"status\":\"DOWN\""), outboxCheck());
        assertTrue(ready() != 200);

        aws.refuse("InvalidIdentityToken");
        await(Duration.ofSeconds(60), () -> sqsCheck().contains("The web identity token that was passed is expired"));
        Thread.sleep(5_000);
        assertEquals(0, count("select count(*) from inbox_messages"));
        assertEquals(0, count("select coalesce(sum(attempts), 0) from outbox_events"), "a credentials outage counted");
        assertEquals(12, queues.depth("orders.fifo"));

        aws.refuse(null);
        awaitShipped(4);
        await(Duration.ofSeconds(60), () -> queues.depth(ElasticMqResource.ORDER_EVENTS) == 13);
        await(Duration.ofSeconds(30), () -> ready() == 200);
        assertOnlyIssuedKeysUsed();
        assertEquals(1, lines("SQS cannot be called, no AWS credentials: WebIdentityTokenFileCredentialsProvider"
                + " (IRSA) failed: Not authorized"), "AccessDenied, said once");
        assertEquals(1, lines("SQS cannot be called, no AWS credentials: WebIdentityTokenFileCredentialsProvider"
                + " (IRSA) failed: The web identity token"), "InvalidIdentityToken, said once");
        assertEquals(1, lines("AWS credentials work again"));
        assertEquals(1, lines("no usable AWS credentials; backing off"), "the relay said it once");
        assertEquals(0, lines(" ERROR "));
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private Map<String, String> irsa(Path token) {
        return Map.of("AWS_ROLE_ARN", ROLE, "AWS_WEB_IDENTITY_TOKEN_FILE", token.toString(),
                "AWS_ROLE_SESSION_NAME", "txinbox", "AWS_ENDPOINT_URL_STS", aws.endpoint());
    }

    private static Path webIdentityToken(String content) throws Exception {
        Path file = Files.createTempFile(Path.of("target"), "token", ".jwt");
        Files.writeString(file, content);
        return file;
    }

    private void start(Map<String, String> credentials) throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-jar", "target/quarkus-app/quarkus-run.jar")
                .redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(name -> name.startsWith("AWS_"));
        Map<String, String> settings = new HashMap<>(Map.of(
                "QUARKUS_DATASOURCE_JDBC_URL", JDBC,
                "QUARKUS_SQS_ENDPOINT_OVERRIDE", aws.endpoint(),
                "AWS_REGION", "eu-west-1",
                // Nothing of this machine's own: no profile files, and never the instance metadata address.
                "AWS_CONFIG_FILE", "target/no-aws-config", "AWS_SHARED_CREDENTIALS_FILE", "target/no-aws-credentials",
                "AWS_EC2_METADATA_DISABLED", "true",
                "QUARKUS_HTTP_PORT", Integer.toString(port),
                "QUARKUS_LOG_CONSOLE_JSON_ENABLED", "false",
                "TXINBOX_HEALTH_REFRESH", "1s",
                "MP_MESSAGING_INCOMING_ORDERS_WAIT_TIME_SECONDS", "1"));
        settings.putAll(credentials);
        env.putAll(settings);
        service = builder.start();
        await(Duration.ofSeconds(90), () -> {
            assertTrue(service.isAlive(), "the service exited at start; see " + log);
            return status("/q/health/started") == 200;
        });
    }

    private void sendOrders(String prefix, int orders) {
        for (int i = 0; i < orders; i++) {
            String order = "ord-" + prefix + "-" + i;
            queues.sendBatch("orders.fifo", order, List.of(created(prefix + "c" + i, order, 1L, 100 + i),
                    paid(prefix + "p" + i, order, 2L, 100 + i), shipped(prefix + "s" + i, order, 3L)));
        }
    }

    private void awaitShipped(int orders) {
        await(Duration.ofSeconds(90), () -> count("select count(*) from orders where status = 'SHIPPED'") == orders);
        assertEquals(3L * orders, count("select count(*) from inbox_messages where status = 'PROCESSED'"));
    }

    /** An event another pod committed: the relay must send it, so it meets the credentials problem too. */
    private void pendingOutboxEvent() throws Exception {
        try (Connection c = DriverManager.getConnection(JDBC, "txinbox", "txinbox");
                PreparedStatement ps = c.prepareStatement("insert into outbox_events (id, aggregatetype, aggregateid,"
                        + " type, timestamp, payload, sequence, partition) values (?, 'order', 'ord-other-pod',"
                        + " 'OrderAccepted', now(), '{}', 1, 0)")) {
            ps.setObject(1, UUID.randomUUID());
            ps.executeUpdate();
        }
    }

    private void assertOnlyIssuedKeysUsed() {
        assertTrue(aws.refusedSqsCalls().isEmpty(), "SQS calls with keys the stand-in never issued, or expired:\n"
                + String.join("\n", aws.refusedSqsCalls()));
        for (String action : List.of("ReceiveMessage", "DeleteMessageBatch", "SendMessageBatch")) {
            assertFalse(aws.keysUsedFor(action).isEmpty(), action + " never reached SQS");
            assertTrue(aws.issued().keySet().containsAll(aws.keysUsedFor(action)), action);
        }
    }

    private String sqsCheck() {
        return check("sqs");
    }

    private String outboxCheck() {
        return check("outbox");
    }

    /** One check of the readiness answer, as compact JSON text ("" when readiness does not answer). */
    private String check(String name) {
        try {
            for (JsonNode check : JSON.readTree(get("/q/health/ready")).path("checks")) {
                if (check.path("name").asText().equals(name)) {
                    return check.toString();
                }
            }
        } catch (Exception e) {
            // not an answer yet
        }
        return "";
    }

    private int ready() {
        return status("/q/health/ready");
    }

    private long lines(String text) throws Exception {
        return Files.readAllLines(log).stream().filter(line -> line.contains(text)).count();
    }

    private int status(String path) {
        try {
            return http.send(probe(path), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    private String get(String path) {
        try {
            return http.send(probe(path), HttpResponse.BodyHandlers.ofString()).body();
        } catch (Exception e) {
            return "";
        }
    }

    /** As Kubernetes asks: a probe that does not answer within its timeout has failed. */
    private HttpRequest probe(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(5)).build();
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
        Awaitility.await().atMost(atMost).pollInterval(Duration.ofMillis(250)).until(condition::getAsBoolean);
    }
}
