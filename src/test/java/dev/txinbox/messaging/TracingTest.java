package dev.txinbox.messaging;

import static dev.txinbox.support.Events.created;
import static dev.txinbox.support.Events.ledger;
import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.txinbox.notifications.OrderNotifications;
import dev.txinbox.support.JsonLogLines;
import dev.txinbox.support.LedgerConsumer;
import dev.txinbox.support.Profiles;
import dev.txinbox.support.ServiceTest;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * One trace from a producer's message through the inbox, the outbox and the next service, read from what a
 * collector would receive (the SDK's in-memory exporter); the log lines and the console that lead to it.
 */
@QuarkusTest
@TestProfile(Profiles.ChainTraced.class)
class TracingTest extends ServiceTest {

    private static final String TOKEN = "test-admin-token";

    @Inject
    InMemorySpanExporter exporter;

    @TestHTTPResource("/")
    URI base;

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void aMessageSentWithATraceparentIsProcessedInASpanOfThatTrace() {
        String traceId = traceId(), producerSpan = spanId();
        String group = unique("grp"), event = unique("evt");
        String sqsId = queues.send("ledger.fifo", group, ledger(event, group, "{}"),
                Map.of("traceparent", "00-" + traceId + "-" + producerSpan + "-01"));

        SpanData span = awaitMessageSpans(traceId, LedgerConsumer.CONSUMER, 1).get(0);
        assertEquals(SpanKind.CONSUMER, span.getKind());
        assertEquals(producerSpan, span.getParentSpanId(), "a child of the producer's span");
        assertTrue(span.getParentSpanContext().isRemote());
        assertEquals(LedgerConsumer.CONSUMER, attribute(span, "txinbox.consumer"));
        assertEquals(event, attribute(span, "txinbox.event_id"));
        assertEquals("processed", attribute(span, "txinbox.outcome"));
        assertEquals(1L, span.getAttributes().get(AttributeKey.longKey("txinbox.attempt")));
        assertEquals(sqsId, attribute(span, "messaging.message.id"));
        assertEquals("ledger.fifo", attribute(span, "messaging.destination.name"));
        assertEquals(StatusCode.UNSET, span.getStatus().getStatusCode());

        // Inside its batch's transaction: linked to the batch's span, which links back to the producer.
        assertEquals(1, span.getLinks().size());
        LinkData link = span.getLinks().get(0);
        SpanData batch = ended().stream().filter(s -> s.getSpanContext().equals(link.getSpanContext())).findFirst()
                .orElseThrow(() -> new AssertionError("no batch span " + link.getSpanContext()));
        assertEquals("txinbox batch " + LedgerConsumer.CONSUMER, batch.getName());
        assertTrue(batch.getLinks().stream().anyMatch(l -> l.getSpanContext().getSpanId().equals(producerSpan)),
                "the batch links to the producer's span");

        // The entry keeps the message's context, which the console shows after the message is gone.
        String stored = (String) db.row("select traceparent from inbox_messages where consumer_name = ?"
                + " and message_id = ?", LedgerConsumer.CONSUMER, event).get("traceparent");
        assertEquals("00-" + traceId + "-" + span.getSpanId() + "-01", stored);
    }

    @Test
    void theAttemptsOfARetriedMessageAreSpansOfTheSameTraceTheFailedOnesInError() {
        String traceId = traceId();
        String group = unique("grp"), event = unique("evt");
        queues.send("ledger.fifo", group, ledger(event, group, "{\"failTimes\":2}"),
                Map.of("traceparent", "00-" + traceId + "-" + spanId() + "-01"));

        eventually().until(() -> "PROCESSED".equals(db.inboxStatus(LedgerConsumer.CONSUMER, event)));
        List<SpanData> attempts = awaitMessageSpans(traceId, LedgerConsumer.CONSUMER, 3);
        assertEquals(List.of("retried", "retried", "processed"),
                attempts.stream().map(s -> attribute(s, "txinbox.outcome")).toList());
        assertEquals(List.of(1L, 2L, 3L), attempts.stream()
                .map(s -> s.getAttributes().get(AttributeKey.longKey("txinbox.attempt"))).toList());
        for (SpanData failed : attempts.subList(0, 2)) {
            assertEquals(StatusCode.ERROR, failed.getStatus().getStatusCode());
            assertTrue(failed.getEvents().stream().anyMatch(e -> e.getName().equals("attempt failed")
                    && e.getAttributes().get(AttributeKey.stringKey("txinbox.detail")).contains("scripted failure")),
                    failed.getEvents().toString());
        }
        assertEquals(StatusCode.UNSET, attempts.get(2).getStatus().getStatusCode());
    }

    @Test
    void aRecordedOutboxEventContinuesTheTraceThroughTheRelayIntoTheNextService() {
        String traceId = traceId();
        String order = unique("trace-order"), event = unique("evt");
        queues.send("orders.fifo", order, created(event, order, 1L, 4200),
                Map.of("traceparent", "00-" + traceId + "-" + spanId() + "-01"));

        SpanData upstream = awaitMessageSpans(traceId, "orders", 1).get(0);
        assertEquals("processed", attribute(upstream, "txinbox.outcome"));
        String recorded = (String) db.row("select tracingspancontext from outbox_events where aggregateid = ?", order)
                .get("tracingspancontext");
        assertEquals("traceparent=00-" + traceId + "-" + upstream.getSpanId() + "-01", recorded,
                "the outbox keeps the recording message's context, as Debezium reads it");

        SpanData downstream = awaitMessageSpans(traceId, OrderNotifications.CONSUMER, 1).get(0);
        assertEquals(upstream.getSpanId(), downstream.getParentSpanId(), "downstream continues the upstream span");
        assertEquals("processed", attribute(downstream, "txinbox.outcome"));
        eventually().until(() -> db.count("select count(*) from order_notifications where order_id = ?", order) == 1);
        String downstreamEntry = (String) db.row("select traceparent from inbox_messages where consumer_name = ?"
                + " and message_id = (select id::text from outbox_events where aggregateid = ?)",
                OrderNotifications.CONSUMER, order).get("traceparent");
        assertTrue(downstreamEntry.startsWith("00-" + traceId + "-"), downstreamEntry);
    }

    @Test
    void theJsonLineOfADeadLetteredMessageCarriesItsTraceIdAndEventId() {
        String traceId = traceId();
        String group = unique("grp"), event = unique("evt");
        try (JsonLogLines lines = JsonLogLines.of(Settlement.class)) {
            String sqsId = queues.send("ledger.fifo", group, "{not json, and " + event + " is only in its attribute",
                    Map.of("traceparent", "00-" + traceId + "-" + spanId() + "-01", "event-id", event));
            awaitDeadLetter("ledger-dlq.fifo", sqsId);
            eventually().until(() -> lines.first("dead-lettered", sqsId) != null);
            JsonNode logged = lines.first("dead-lettered", sqsId);
            assertEquals("WARN", logged.path("level").asText(), logged.toString());
            JsonNode mdc = logged.path("mdc");
            assertEquals(traceId, mdc.path("traceId").asText(), logged.toString());
            assertEquals(event, mdc.path("eventId").asText(), logged.toString());
            assertEquals(sqsId, mdc.path("sqsMessageId").asText(), logged.toString());
            assertEquals(LedgerConsumer.CONSUMER, mdc.path("consumer").asText(), logged.toString());
            assertFalse(logged.toString().contains("{not json"), "no payload in the log: " + logged);

            SpanData span = awaitMessageSpans(traceId, LedgerConsumer.CONSUMER, 1).get(0);
            assertEquals("dead_lettered", attribute(span, "txinbox.outcome"));
            assertEquals(StatusCode.ERROR, span.getStatus().getStatusCode());
        }
    }

    @Test
    void anEntrysPageShowsItsTraceIdAndLinksToTheTraceView() throws Exception {
        String traceId = traceId();
        String group = unique("grp"), traced = unique("evt"), untraced = unique("evt");
        queues.send("ledger.fifo", group, ledger(traced, group, "{\"reject\":true}"),
                Map.of("traceparent", "00-" + traceId + "-" + spanId() + "-01"));
        queues.send("ledger.fifo", group, ledger(untraced, group, "{\"reject\":true}"));
        eventually().until(() -> "REJECTED".equals(db.inboxStatus(LedgerConsumer.CONSUMER, traced))
                && "REJECTED".equals(db.inboxStatus(LedgerConsumer.CONSUMER, untraced)));

        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> signedIn = http.send(HttpRequest.newBuilder(base.resolve("/console/sign-in"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("token=" + TOKEN)).build(), HttpResponse.BodyHandlers.ofString());
        String setCookie = signedIn.headers().firstValue("Set-Cookie").orElseThrow();
        String cookie = setCookie.substring(0, setCookie.indexOf(';'));

        String page = entryPage(http, cookie, traced);
        assertTrue(page.contains("<code id=\"trace-id\">" + traceId + "</code>"), page);
        assertTrue(page.contains("href=\"https://traces.example/trace/" + traceId + "?from=txinbox\""), page);

        // A message that came without a trace is traced from here on: its page names the trace that began with it.
        String stored = (String) db.row("select traceparent from inbox_messages where consumer_name = ?"
                + " and message_id = ?", LedgerConsumer.CONSUMER, untraced).get("traceparent");
        assertNotNull(stored);
        assertTrue(entryPage(http, cookie, untraced).contains("<code id=\"trace-id\">" + stored.substring(3, 35)
                + "</code>"));
    }

    private String entryPage(HttpClient http, String cookie, String id) throws Exception {
        HttpResponse<String> page = http.send(HttpRequest.newBuilder(base.resolve("/console/entry?consumer="
                + LedgerConsumer.CONSUMER + "&id=" + URLEncoder.encode(id, StandardCharsets.UTF_8)))
                .header("Cookie", cookie).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, page.statusCode(), page.body());
        return page.body();
    }

    /** The message spans of one consumer in one trace, once there are {@code count}, in the order they started. */
    private List<SpanData> awaitMessageSpans(String traceId, String consumer, int count) {
        eventually().until(() -> messageSpans(traceId, consumer).size() >= count);
        List<SpanData> spans = messageSpans(traceId, consumer);
        assertEquals(count, spans.size(), spans.toString());
        return spans;
    }

    private List<SpanData> messageSpans(String traceId, String consumer) {
        List<SpanData> spans = new ArrayList<>(ended().stream().filter(s -> s.getTraceId().equals(traceId)
                && s.getKind() == SpanKind.CONSUMER && consumer.equals(attribute(s, "txinbox.consumer"))).toList());
        spans.sort((a, b) -> Long.compare(a.getStartEpochNanos(), b.getStartEpochNanos()));
        return spans;
    }

    private List<SpanData> ended() {
        return exporter.getFinishedSpanItems();
    }

    private static String attribute(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    private static String traceId() {
        return hex(16);
    }

    private static String spanId() {
        return hex(8);
    }

    private static String hex(int bytes) {
        byte[] random = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(random);
        random[0] |= 1; // never all zero
        return HexFormat.of().formatHex(random);
    }
}
