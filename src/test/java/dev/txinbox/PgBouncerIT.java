package dev.txinbox;

import static dev.txinbox.support.Events.created;
import static dev.txinbox.support.Events.paid;
import static dev.txinbox.support.Events.shipped;
import static dev.txinbox.support.PackagedService.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.txinbox.support.ElasticMqResource;
import dev.txinbox.support.PackagedService;
import dev.txinbox.support.PgBouncer;
import dev.txinbox.support.TestQueues;

/**
 * Two packaged instances through a real PgBouncer, as teams run PostgreSQL behind a pooler. In session mode they
 * work as they do direct: the relays split the partitions and wake each other through LISTEN. In transaction mode a
 * session's advisory locks and LISTEN stay on whichever server connection took them, and two relays could own one
 * partition: the service refuses to start and names the settings, and with them (a direct connection for the relay,
 * {@code prepareThreshold=0} for the datasource) it works through the pooler. The oracle: every event published
 * exactly once across both relays, the partitions held by exactly the two relays, one lock each.
 */
class PgBouncerIT {

    private static final String DATABASE = System.getenv().getOrDefault("TXINBOX_TEST_DB", "txinbox_test") + "_pgb";
    private static final String DIRECT = "jdbc:postgresql://127.0.0.1:5432/" + DATABASE;
    private static final int ORDERS = 60;

    private static final ElasticMqResource broker = new ElasticMqResource();
    private static String endpoint;
    private static PgBouncer pooler;

    private final PackagedService first = new PackagedService(DATABASE);
    private final PackagedService second = new PackagedService(DATABASE);
    private TestQueues queues;

    @BeforeAll
    static void infrastructure() throws Exception {
        endpoint = broker.start().get("test.sqs-endpoint");
        pooler = PgBouncer.start(DATABASE);
    }

    @AfterAll
    static void stopInfrastructure() throws Exception {
        pooler.close();
        broker.stop();
    }

    @BeforeEach
    void freshDatabaseAndQueues() throws Exception {
        first.freshDatabase();
        ElasticMqResource.stopBroker();
        ElasticMqResource.startBroker();
        queues = new TestQueues(endpoint);
    }

    @AfterEach
    void stopServices() throws Exception {
        first.close();
        second.close();
        queues.close();
    }

    @Test
    void sessionModeWorksAsDirect() throws Exception {
        twoInstancesPublishEveryEventOnce(Map.of("QUARKUS_DATASOURCE_JDBC_URL", pooler.url("session")), "session");
    }

    @Test
    void transactionModeIsRefusedWithTheSettingsToUse() throws Exception {
        String log = refusedStart(Map.of("QUARKUS_DATASOURCE_JDBC_URL", pooler.url("transaction")));
        assertTrue(log.contains("the outbox relay's connection to PostgreSQL does not keep its session")
                && log.contains("pool_mode=transaction") && log.contains("TXINBOX_OUTBOX_RELAY_JDBC_URL"), log);
        assertTrue(log.contains("add prepareThreshold=0 to QUARKUS_DATASOURCE_JDBC_URL"), log);

        // The relay off, the driver told: only the relay's session was in the way.
        String relayOff = refusedStart(Map.of("QUARKUS_DATASOURCE_JDBC_URL", pooler.url("transaction"),
                "TXINBOX_OUTBOX_RELAY_ENABLED", "false"));
        assertTrue(relayOff.contains("add prepareThreshold=0") && !relayOff.contains("outbox relay's connection"),
                relayOff);
    }

    @Test
    void transactionModeWorksWithADirectConnectionForTheRelay() throws Exception {
        twoInstancesPublishEveryEventOnce(Map.of(
                "QUARKUS_DATASOURCE_JDBC_URL", pooler.url("transaction") + "?prepareThreshold=0",
                "TXINBOX_OUTBOX_RELAY_JDBC_URL", DIRECT), "transaction");
    }

    private void twoInstancesPublishEveryEventOnce(Map<String, String> database, String mode) throws Exception {
        Map<String, String> settings = new HashMap<>(database);
        settings.put("AWS_ACCESS_KEY_ID", "test");
        settings.put("AWS_SECRET_ACCESS_KEY", "test");
        // No relay looks for events on its own within the test: what the other instance committed for its
        // partitions reaches it through LISTEN/NOTIFY, or not at all.
        settings.put("TXINBOX_OUTBOX_RELAY_POLL_INTERVAL", "120s");
        first.start(Path.of("target", "PgBouncerIT-" + mode + "-1.log"), endpoint, settings);
        second.start(Path.of("target", "PgBouncerIT-" + mode + "-2.log"), endpoint, settings);
        await(Duration.ofSeconds(60), () -> first.count(RELAYS_HOLDING_PARTITIONS) == 2);

        for (int i = 0; i < ORDERS; i++) {
            String order = "ord-pgb-" + i;
            queues.sendBatch("orders.fifo", order, List.of(created("c-" + i, order, 1L, 100 + i),
                    paid("p-" + i, order, 2L, 100 + i), shipped("s-" + i, order, 3L)));
        }
        await(Duration.ofSeconds(90), () -> first.count("select count(*) from orders where status = 'SHIPPED'") == ORDERS);
        await(Duration.ofSeconds(30), () -> queues.depth(ElasticMqResource.ORDER_EVENTS) == 3 * ORDERS);

        assertEquals(3.0 * ORDERS, first.metric("txinbox_outbox_published_total")
                + second.metric("txinbox_outbox_published_total"), "an event was sent twice, or not at all");
        assertTrue(first.metric("txinbox_outbox_published_total") > 0 && second.metric("txinbox_outbox_published_total") > 0,
                "one relay published everything: the partitions were not shared");
        assertEquals(0, first.count("select count(*) from (select objid from pg_locks where locktype = 'advisory'"
                + " and classid = " + 0x74786f62 + " and granted group by objid having count(*) > 1) twice"),
                "a partition lock held twice");
        assertEquals(2, first.count(RELAYS_HOLDING_PARTITIONS));
        assertEquals(0, first.count("select count(*) from outbox_events where published_at is null"));
        assertEquals(ORDERS, first.count("select count(*) from payment_audit"), "a payment applied twice or lost");
        assertEquals(0, queues.depth("orders-dlq.fifo"));
        assertEquals(0, first.logLines(" ERROR ") + second.logLines(" ERROR "));
    }

    private static final String RELAYS_HOLDING_PARTITIONS = "select count(distinct pid) from pg_locks"
            + " where locktype = 'advisory' and classid = " + 0x74786f62 + " and granted";

    private static String refusedStart(Map<String, String> settings) throws Exception {
        Map<String, String> env = new HashMap<>(settings);
        env.put("QUARKUS_SQS_ENDPOINT_OVERRIDE", endpoint);
        env.put("QUARKUS_HTTP_PORT", "0");
        return PackagedService.refusedStart(env);
    }
}
