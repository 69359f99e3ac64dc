package dev.txinbox.support;

import static dev.txinbox.support.Events.created;
import static dev.txinbox.support.Events.paid;
import static dev.txinbox.support.Events.shipped;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/**
 * The set-up of a scenario against AWS as EKS gives it to a pod: a real broker (ElasticMQ, its queues emptied for
 * each scenario) behind the {@link AwsStandIn}, the packaged service on a fresh database of its own, and a producer
 * sending orders straight to the broker.
 */
public abstract class AwsScenario {

    protected static final String ROLE = "arn:aws:iam::000000000000:role/txinbox";

    private static final ElasticMqResource broker = new ElasticMqResource();
    private static String brokerEndpoint;

    protected final PackagedService service;
    protected AwsStandIn aws;
    protected TestQueues queues;
    protected Path log;

    protected AwsScenario(String databaseSuffix) {
        service = new PackagedService(System.getenv().getOrDefault("TXINBOX_TEST_DB", "txinbox_test") + databaseSuffix);
    }

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
        service.freshDatabase();
        ElasticMqResource.stopBroker();
        ElasticMqResource.startBroker();
        aws = new AwsStandIn(brokerEndpoint);
        queues = new TestQueues(brokerEndpoint);
        log = Path.of("target", getClass().getSimpleName() + "-" + test.getTestMethod().orElseThrow().getName() + ".log");
    }

    @AfterEach
    void stopAll() throws Exception {
        service.close();
        queues.close();
        aws.close();
    }

    /** Starts the service with these credential settings (and nothing else of AWS's). */
    protected void start(Map<String, String> credentials) throws Exception {
        service.start(log, aws.endpoint(), credentials);
    }

    /** EKS's settings for IRSA, with STS found at the stand-in. */
    protected Map<String, String> irsa(Path token) {
        return Map.of("AWS_ROLE_ARN", ROLE, "AWS_WEB_IDENTITY_TOKEN_FILE", token.toString(),
                "AWS_ROLE_SESSION_NAME", "txinbox", "AWS_ENDPOINT_URL_STS", aws.endpoint());
    }

    /** A projected service-account token, as the kubelet writes it. */
    protected static Path webIdentityToken(String content) throws Exception {
        Path file = Files.createTempFile(Path.of("target"), "token", ".jwt");
        Files.writeString(file, content);
        return file;
    }

    /** Each order's CREATED, PAID and SHIPPED, in its own message group. */
    protected void sendOrders(String prefix, int orders) {
        for (int i = 0; i < orders; i++) {
            String order = "ord-" + prefix + "-" + i;
            queues.sendBatch("orders.fifo", order, List.of(created(prefix + "c" + i, order, 1L, 100 + i),
                    paid(prefix + "p" + i, order, 2L, 100 + i), shipped(prefix + "s" + i, order, 3L)));
        }
    }
}
