package dev.txinbox.messaging;

import static dev.txinbox.support.Events.ledger;
import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.logging.Level;

import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.txinbox.support.LedgerConsumer;
import dev.txinbox.support.LogCapture;
import dev.txinbox.support.ServiceTest;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.quarkus.arc.Arc;
import io.quarkus.opentelemetry.runtime.exporter.otlp.tracing.LateBoundSpanProcessor;
import io.quarkus.opentelemetry.runtime.exporter.otlp.tracing.RemoveableLateBoundSpanProcessor;
import io.quarkus.test.junit.QuarkusTest;

/**
 * No collector configured (no {@code OTEL_EXPORTER_OTLP_ENDPOINT}), as in a pod that has none: the service starts,
 * traces its messages (the trace id reaches the row) and exports nothing, so nothing fails or complains.
 */
@QuarkusTest
class TracingWithoutCollectorTest extends ServiceTest {

    @Inject
    @Any
    Instance<SpanExporter> exporters;

    @Test
    void withoutAnEndpointNothingIsExportedAndTracedMessagesAreProcessedCleanly() {
        // Quarkus's OTLP exporter (which would send to localhost:4317) is left out; only the discarding one is there.
        assertInstanceOf(RemoveableLateBoundSpanProcessor.class,
                Arc.container().select(LateBoundSpanProcessor.class).get());
        List<SpanExporter> present = exporters.stream().toList();
        assertEquals(1, present.size(), present.toString());

        try (LogCapture log = LogCapture.all()) {
            String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
            String group = unique("grp"), traced = unique("evt"), untraced = unique("evt");
            queues.send("ledger.fifo", group, ledger(traced, group, "{}"),
                    Map.of("traceparent", "00-" + traceId + "-00f067aa0ba902b7-01"));
            queues.send("ledger.fifo", group, ledger(untraced, group, "{}"));
            eventually().until(() -> "PROCESSED".equals(db.inboxStatus(LedgerConsumer.CONSUMER, traced))
                    && "PROCESSED".equals(db.inboxStatus(LedgerConsumer.CONSUMER, untraced)));

            String stored = (String) db.row("select traceparent from inbox_messages where consumer_name = ?"
                    + " and message_id = ?", LedgerConsumer.CONSUMER, traced).get("traceparent");
            assertTrue(stored.startsWith("00-" + traceId + "-"), stored);
            List<LogCapture.Line> complaints = log.lines().stream().filter(line -> line.atLeast(Level.WARNING)
                    && (line.logger().startsWith("io.opentelemetry") || line.logger().startsWith("io.quarkus.opentelemetry")
                            || line.message().toLowerCase().contains("export"))).toList();
            assertTrue(complaints.isEmpty(), complaints.toString());
        }
    }
}
