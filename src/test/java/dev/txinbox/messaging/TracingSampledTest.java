package dev.txinbox.messaging;

import static dev.txinbox.support.Events.ledger;
import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.txinbox.inbox.TraceParent;
import dev.txinbox.support.LedgerConsumer;
import dev.txinbox.support.Profiles;
import dev.txinbox.support.ServiceTest;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * Sampling set by the SDK's standard variables, as the manifests show: {@code parentbased_traceidratio} with a
 * ratio of 0 samples none of the traces txinbox starts, and still follows a producer that sampled its own.
 */
@QuarkusTest
@TestProfile(Profiles.SampledAndDeleteOnPublish.class)
class TracingSampledTest extends ServiceTest {

    @Inject
    InMemorySpanExporter exporter;

    @Test
    void theSamplerVariablesDecideForTracesWithoutAProducerAndTheProducerDecidesForItsOwn() {
        String group = unique("grp"), unsampled = unique("evt"), sampled = unique("evt");
        String producerTrace = "0af7651916cd43dd8448eb211c80319c";
        queues.send("ledger.fifo", group, ledger(unsampled, group, "{}"));
        queues.send("ledger.fifo", group, ledger(sampled, group, "{}"),
                Map.of("traceparent", "00-" + producerTrace + "-b7ad6b7169203331-01"));

        // The producer sampled its trace: the message's span is exported in it.
        eventually().until(() -> !messageSpans(producerTrace).isEmpty());
        assertEquals("processed", messageSpans(producerTrace).get(0).getAttributes()
                .get(AttributeKey.stringKey("txinbox.outcome")));

        // The first message came without a producer: its trace is not sampled, yet its id reaches the row (and so
        // the logs and the console). It was processed, and its span ended, before the second's, which is exported.
        assertEquals("PROCESSED", db.inboxStatus(LedgerConsumer.CONSUMER, unsampled));
        String stored = (String) db.row("select traceparent from inbox_messages where consumer_name = ?"
                + " and message_id = ?", LedgerConsumer.CONSUMER, unsampled).get("traceparent");
        String traceId = TraceParent.traceId(stored);
        assertNotNull(traceId, stored);
        assertTrue(stored.endsWith("-00"), "not sampled: " + stored);
        assertEquals(List.of(), exporter.getFinishedSpanItems().stream()
                .filter(s -> s.getTraceId().equals(traceId)).toList());
    }

    private List<SpanData> messageSpans(String traceId) {
        return exporter.getFinishedSpanItems().stream().filter(s -> s.getTraceId().equals(traceId)
                && s.getKind() == SpanKind.CONSUMER).toList();
    }
}
