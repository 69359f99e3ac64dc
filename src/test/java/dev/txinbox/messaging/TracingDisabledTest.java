package dev.txinbox.messaging;

import static dev.txinbox.support.Events.ledger;
import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.txinbox.support.LedgerConsumer;
import dev.txinbox.support.Profiles;
import dev.txinbox.support.ServiceTest;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * Tracing off by the standard variable ({@code OTEL_SDK_DISABLED=true}): txinbox makes no span of its own, and a
 * message keeps its producer's trace, which still reaches the row (and so the logs, the console and the outbox).
 */
@QuarkusTest
@TestProfile(Profiles.SwitchedOff.class)
class TracingDisabledTest extends ServiceTest {

    @Test
    void noSpanIsMadeAndTheProducersTraceStillReachesTheRow() {
        String group = unique("grp"), traced = unique("evt"), untraced = unique("evt");
        String producer = "00-1f3e5d7c9b2a4f6e8d0c1b3a5f7e9d1c-c3d2e1f0a9b8c7d6-01";
        queues.send("ledger.fifo", group, ledger(traced, group, "{}"), Map.of("traceparent", producer));
        queues.send("ledger.fifo", group, ledger(untraced, group, "{}"));
        eventually().until(() -> "PROCESSED".equals(db.inboxStatus(LedgerConsumer.CONSUMER, traced))
                && "PROCESSED".equals(db.inboxStatus(LedgerConsumer.CONSUMER, untraced)));

        // The producer's own span id: no span of txinbox's stands between the producer and the row.
        assertEquals(producer, traceparent(traced));
        assertNull(traceparent(untraced));
    }

    private String traceparent(String event) {
        return (String) db.row("select traceparent from inbox_messages where consumer_name = ? and message_id = ?",
                LedgerConsumer.CONSUMER, event).get("traceparent");
    }
}
