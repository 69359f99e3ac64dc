package dev.txinbox.support;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Map;

import org.elasticmq.NodeAddress;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * A real SQS-compatible broker (ElasticMQ) inside the test JVM, with the service's queues and those of
 * the test-only {@code ledger} consumer. The service reaches it through the Quarkus SQS client, as it
 * would reach AWS.
 */
public class ElasticMqResource implements QuarkusTestResourceLifecycleManager {

    /** Short, so that the slow-handler scenario outlives it quickly. */
    public static final int LEDGER_VISIBILITY_SECONDS = 3;
    /** The broker's own redrive, a safety net above txinbox's attempt limit. */
    public static final int MAX_RECEIVE_COUNT = 10;
    /** The outbox's queue (txinbox.outbox.queue's default). */
    public static final String ORDER_EVENTS = "order-events.fifo";
    /** The chained test's events queue and its dead-letter queue (ChainedOutboxTest). */
    public static final String CHAIN_EVENTS = "chain-events.fifo";
    public static final String CHAIN_EVENTS_DLQ = "chain-events-dlq.fifo";

    /**
     * A test profile's settings that run the whole chain: the notifications consumer switched on, by the variables a
     * pod is given, reading what the relay publishes, on a queue of this profile alone (in the other tests nothing
     * must take the published events off the queue before the test reads them).
     */
    public static Map<String, String> chained() {
        return Map.of(
                "TXINBOX_NOTIFICATIONS_ENABLED", "true",
                "TXINBOX_ORDER_EVENTS_QUEUE", CHAIN_EVENTS,
                "TXINBOX_NOTIFICATIONS_DLQ", CHAIN_EVENTS_DLQ,
                "mp.messaging.incoming.notifications.wait-time-seconds", "1");
    }

    // The broker outlives single tests; the outage scenario stops and restarts it through these.
    private static SQSRestServer server;
    private static int port;

    @Override
    public Map<String, String> start() {
        port = freePort();
        startBroker();
        String endpoint = endpoint();
        return Map.ofEntries(
                Map.entry("quarkus.sqs.endpoint-override", endpoint),
                Map.entry("test.sqs-endpoint", endpoint),
                // The test-only second consumer: configuration plus one class (LedgerConsumer).
                Map.entry("txinbox.consumers.ledger.queue", "ledger.fifo"),
                Map.entry("txinbox.consumers.ledger.dlq", "ledger-dlq.fifo"),
                Map.entry("txinbox.consumers.ledger.parallelism", "4"),
                Map.entry("txinbox.consumers.ledger.visibility-timeout", LEDGER_VISIBILITY_SECONDS + "s"),
                Map.entry("txinbox.consumers.ledger.retry.base", "1s"),
                Map.entry("txinbox.consumers.ledger.retry.max-attempts", "3"),
                Map.entry("txinbox.inbox.max-body-bytes", "32768"),
                Map.entry("mp.messaging.incoming.ledger.connector", "smallrye-sqs"),
                Map.entry("mp.messaging.incoming.ledger.queue", "ledger.fifo"),
                Map.entry("mp.messaging.incoming.ledger.max-number-of-messages", "10"),
                Map.entry("mp.messaging.incoming.ledger.wait-time-seconds", "1"),
                Map.entry("mp.messaging.incoming.ledger.ack-strategy", "ignore"),
                Map.entry("mp.messaging.incoming.ledger.failure-strategy", "ignore"),
                Map.entry("mp.messaging.incoming.ledger.receive.request.customizer", "txinbox"),
                Map.entry("mp.messaging.incoming.orders.wait-time-seconds", "1"));
    }

    @Override
    public void stop() {
        stopBroker();
    }

    /** Starts the broker on its port with empty queues (ElasticMQ keeps nothing across a restart here). */
    public static synchronized void startBroker() {
        server = SQSRestServerBuilder.withInterface("127.0.0.1").withPort(port)
                .withServerAddress(new NodeAddress("http", "127.0.0.1", port, ""))
                .withAWSRegion("eu-west-1").withAWSAccountId("000000000000").start();
        server.waitUntilStarted();
        try (TestQueues queues = new TestQueues(endpoint())) {
            queues.createFifo("orders-dlq.fifo", 30, null);
            queues.createFifo("orders.fifo", 5, "orders-dlq.fifo");
            queues.createFifo("ledger-dlq.fifo", 30, null);
            queues.createFifo("ledger.fifo", LEDGER_VISIBILITY_SECONDS, "ledger-dlq.fifo");
            // Where the outbox relay publishes the orders domain's downstream events.
            queues.createFifo(ORDER_EVENTS, 30, null);
            // The chained test's own: its relay publishes there and its downstream consumer reads there.
            queues.createFifo(CHAIN_EVENTS_DLQ, 30, null);
            queues.createFifo(CHAIN_EVENTS, 5, CHAIN_EVENTS_DLQ);
        }
    }

    public static synchronized void stopBroker() {
        if (server != null) {
            server.stopAndWait();
            server = null;
        }
    }

    private static String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
