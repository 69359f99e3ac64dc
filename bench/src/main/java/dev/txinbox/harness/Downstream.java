package dev.txinbox.harness;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The other half of the verdict: what the orders handler told the services downstream through the outbox, against
 * what it applied. The orders handler records exactly one event for every event it applies, naming it
 * ({@code payload.causedBy}), so the inbox's {@code PROCESSED} rows are this oracle: each must have caused exactly
 * one outbox event, every outbox event must be published and reach the events queue, and per order the events
 * must arrive in sequence order, 1, 2, 3 … with no gap. A copy of an event that arrives again (the relay crashed
 * between its send and its mark, and the broker's deduplication window did not cover it) is allowed, as at-least-once
 * delivery allows it: it carries the same event id, and a txinbox consumer downstream absorbs it; it is counted.
 *
 * @param events        outbox events recorded
 * @param received      messages read from the events queue, copies included
 * @param pending       outbox events never published (or given up by an operator: skipped)
 * @param lost          outbox events published but never seen on the queue
 * @param unexpected    messages on the queue that are no outbox event (or are unreadable)
 * @param copies        messages that repeat an event already seen
 * @param outOfOrder    orders whose events first arrived in another order than 1, 2, 3 …
 * @param gaps          orders whose recorded sequences are not 1 … n
 * @param doubled       applied events that caused more than one outbox event
 * @param missing       applied events that caused none
 */
public record Downstream(long events, long received, long pending, long lost, long unexpected, long copies, long outOfOrder,
        long gaps, long doubled, long missing, List<String> examples) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public boolean complete() {
        return pending == 0 && lost == 0 && unexpected == 0 && outOfOrder == 0 && gaps == 0 && doubled == 0
                && missing == 0;
    }

    /**
     * Waits while the relay still has events to publish (until none is pending, or nothing moved for
     * {@link Quiescence#STALL}), then drains the events queue and compares. The service must still run.
     */
    public static Downstream inspect(Sqs sqs, String eventsQueueUrl, String databaseUrl, Consumer<String> note)
            throws SQLException, InterruptedException {
        awaitPublished(databaseUrl, note);
        List<Message> all = sqs.drain(eventsQueueUrl);
        List<String> examples = new ArrayList<>();

        Recorded recorded = Recorded.read(databaseUrl, examples);
        Map<String, Long> sequenceOf = recorded.sequenceOf();
        Set<String> seen = new HashSet<>();
        Map<String, Long> lastSeen = new HashMap<>();
        Set<String> disordered = new HashSet<>();
        long unexpected = 0;
        long copies = 0;
        for (Message m : all) {
            String eventId;
            String aggregateId;
            long sequence;
            try {
                JsonNode body = JSON.readTree(m.body());
                eventId = body.path("eventId").asText();
                aggregateId = body.path("aggregateId").asText();
                sequence = body.path("sequence").asLong();
            } catch (Exception e) {
                unexpected++;
                example(examples, "unreadable message on the events queue: " + m.body());
                continue;
            }
            Long recordedSequence = sequenceOf.get(eventId);
            if (recordedSequence == null || recordedSequence != sequence) {
                unexpected++;
                example(examples, "event " + eventId + " (" + aggregateId + " #" + sequence + ") is no recorded event");
                continue;
            }
            if (!seen.add(eventId)) {
                copies++;
                continue;
            }
            long expected = lastSeen.getOrDefault(aggregateId, 0L) + 1;
            if (sequence != expected && disordered.add(aggregateId)) {
                example(examples, "order " + aggregateId + ": #" + sequence + " arrived first after #" + (expected - 1));
            }
            lastSeen.put(aggregateId, sequence);
        }
        long lost = sequenceOf.keySet().stream().filter(id -> !seen.contains(id)).count();
        if (lost > 0) {
            example(examples, lost + " recorded events never reached the events queue");
        }
        return new Downstream(sequenceOf.size(), all.size(), recorded.pending(), lost, unexpected, copies,
                disordered.size(), recorded.gaps(), recorded.doubled(), recorded.missing(), examples);
    }

    /**
     * Waits until the outbox holds no unpublished event, or nothing moved for {@link Quiescence#STALL} (then says so
     * through {@code note}).
     */
    public static void awaitPublished(String databaseUrl, Consumer<String> note) throws InterruptedException {
        long last = -2;
        long lastChange = System.currentTimeMillis();
        while (true) {
            long pending;
            try {
                pending = Db.queryLong(databaseUrl,
                        "select count(*) from outbox_events where published_at is null and skipped_at is null");
            } catch (SQLException e) {
                pending = -1;
            }
            if (pending == 0) {
                return;
            }
            if (pending != last) {
                last = pending;
                lastChange = System.currentTimeMillis();
            } else if (System.currentTimeMillis() - lastChange > Quiescence.STALL.toMillis()) {
                note.accept("the outbox still holds " + pending + " unpublished events after "
                        + Quiescence.STALL.toSeconds() + " s without progress");
                return;
            }
            Thread.sleep(250);
        }
    }

    static void example(List<String> examples, String what) {
        if (examples.size() < 10) {
            examples.add(what);
        }
    }
}
