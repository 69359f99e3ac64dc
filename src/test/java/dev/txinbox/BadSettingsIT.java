package dev.txinbox;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.txinbox.support.PackagedService;

/**
 * The packaged service, given settings that could not work, refuses to start and names every one of
 * them at once, before it touches the database or SQS (neither is reachable here).
 */
class BadSettingsIT {

    @Test
    void everyBadSettingIsNamedAndTheServiceDoesNotStart() throws Exception {
        Map<String, String> env = Map.of(
                "TXINBOX_CONSUMERS_ORDERS_PARALLELISM", "0",
                "TXINBOX_CONSUMERS_ORDERS_BATCH_SIZE", "5000",
                "TXINBOX_CONSUMERS_ORDERS_DLQ", "orders.fifo",
                "TXINBOX_CONSUMERS_ORDERS_VISIBILITY_TIMEOUT", "0s",
                "TXINBOX_CONSUMERS_ORDERS_RETRY_BASE", "10s",
                "TXINBOX_CONSUMERS_ORDERS_RETRY_CAP", "1s",
                "TXINBOX_CONSUMERS_ORDERS_RETRY_MAX_ATTEMPTS", "0",
                "TXINBOX_HEALTH_MAX_FAILED", "-1",
                "TXINBOX_RETENTION_BATCH_SIZE", "0",
                "TXINBOX_INBOX_MAX_BODY_BYTES", "2000000");
        String log = run(env);
        for (String named : List.of(
                "txinbox.consumers.orders.parallelism must be greater than or equal to 1",
                "txinbox.consumers.orders.batch-size must be less than or equal to 1000",
                "txinbox.consumers.orders dlqOtherThanQueue failed: dlq must name a dead-letter queue other than the source queue",
                "txinbox.consumers.orders.visibility-timeout must be longer than or equal to 1 second",
                "txinbox.consumers.orders.retry capAtLeastBase failed: cap must not be shorter than base",
                "txinbox.consumers.orders.retry.max-attempts must be greater than or equal to 1",
                "txinbox.health.max-failed must be greater than or equal to 0",
                "txinbox.retention.batch-size must be greater than or equal to 1",
                "txinbox.inbox.max-body-bytes must be less than or equal to 1048576")) {
            assertTrue(log.contains(named), "not named: " + named + "\n" + log);
        }
    }

    @Test
    void aMisspelledSettingIsRefusedRatherThanIgnored() throws Exception {
        // A property, not an environment variable: those cannot be told from the pod's other variables.
        String log = run(Map.of("JAVA_TOOL_OPTIONS", "-Dtxinbox.health.max-lagg=1m"));
        assertTrue(log.contains("txinbox.health.max-lagg") && log.contains("does not map to any root"), log);
    }

    private static String run(Map<String, String> env) throws Exception {
        Map<String, String> all = new HashMap<>(env);
        all.put("QUARKUS_DATASOURCE_JDBC_URL", "jdbc:postgresql://127.0.0.1:1/none");
        all.put("QUARKUS_SQS_ENDPOINT_OVERRIDE", "http://127.0.0.1:1");
        return PackagedService.refusedStart(all);
    }
}
