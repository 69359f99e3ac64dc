package dev.txinbox.harness;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The whole chain's verdict, downstream: what the notifications consumer (the service's second consumer, reading the
 * events queue through an inbox of its own) applied, against what the orders handler recorded in the outbox. Every
 * recorded event must be published and applied downstream exactly once ({@code order_notifications} has no unique
 * key, so a double shows as a second row), per order in sequence order 1, 2, 3 … (rows in insertion order), and
 * the downstream inbox must hold nothing parked, failed or dead, nor its dead-letter queue anything.
 *
 * @param events        outbox events recorded
 * @param applied       order_notifications rows
 * @param pending       recorded events never published (or skipped by an operator)
 * @param lost          recorded events applied nowhere downstream
 * @param doubled       applications beyond one per event
 * @param outOfOrder    orders whose notifications were not applied in sequence order
 * @param unexpected    notifications of no recorded event, or with another sequence
 * @param unexplained   downstream inbox rows not PROCESSED, plus the downstream dead-letter queue's depth
 * @param gaps          orders whose recorded sequences are not 1 … n
 * @param doubledEvents applied order events that caused more than one outbox event
 * @param missingEvents applied order events that caused none
 * @param inboxByStatus the downstream inbox's rows by status
 */
public record Chain(long events, long applied, long pending, long lost, long doubled, long outOfOrder, long unexpected,
        long unexplained, long gaps, long doubledEvents, long missingEvents, Map<String, Long> inboxByStatus,
        List<String> examples) {

    public static final String CONSUMER = "notifications";

    public boolean complete() {
        return pending == 0 && lost == 0 && doubled == 0 && outOfOrder == 0 && unexpected == 0 && unexplained == 0
                && gaps == 0 && doubledEvents == 0 && missingEvents == 0;
    }

    /**
     * Waits until the relay has published everything and the consumer downstream has taken all of it (see
     * {@link #awaitApplied}), then compares. The service must still run.
     */
    public static Chain inspect(Sqs sqs, String eventsQueueUrl, String eventsDlqUrl, String databaseUrl,
            Consumer<String> note) throws SQLException, InterruptedException {
        Downstream.awaitPublished(databaseUrl, note);
        awaitApplied(sqs, eventsQueueUrl, databaseUrl, note);
        List<String> examples = new ArrayList<>();
        Recorded recorded = Recorded.read(databaseUrl, examples);
        Map<String, Long> sequenceOf = recorded.sequenceOf();

        List<Applied> rows = new ArrayList<>();
        Map<String, Long> byStatus = new TreeMap<>();
        try (Connection db = Db.connect(databaseUrl); Statement s = db.createStatement()) {
            try (ResultSet rs = s.executeQuery("select event_id, order_id, sequence_no from order_notifications order by id")) {
                while (rs.next()) {
                    rows.add(new Applied(rs.getString(1), rs.getString(2), rs.getLong(3)));
                }
            }
            try (ResultSet rs = s.executeQuery("select status, count(*) from inbox_messages where consumer_name = '"
                    + CONSUMER + "' group by status")) {
                while (rs.next()) {
                    byStatus.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        Tally tally = tally(sequenceOf, rows, examples);
        long notProcessed = byStatus.entrySet().stream().filter(e -> !e.getKey().equals("PROCESSED"))
                .mapToLong(Map.Entry::getValue).sum();
        long deadLetters = sqs.depth(eventsDlqUrl);
        if (notProcessed > 0 || deadLetters > 0) {
            Downstream.example(examples, "downstream inbox " + byStatus + ", its dead-letter queue holds " + deadLetters);
        }
        return new Chain(sequenceOf.size(), rows.size(), recorded.pending(), tally.lost(), tally.doubled(),
                tally.outOfOrder(), tally.unexpected(), notProcessed + deadLetters, recorded.gaps(), recorded.doubled(),
                recorded.missing(), byStatus, examples);
    }

    /** One {@code order_notifications} row. */
    record Applied(String eventId, String orderId, long sequence) {
    }

    /** What the applied rows show against the recorded events: see the record's parameters. */
    record Tally(long lost, long doubled, long outOfOrder, long unexpected) {
    }

    /** {@code rows} in the order they were applied; {@code sequenceOf}: each recorded event's sequence, by id. */
    static Tally tally(Map<String, Long> sequenceOf, List<Applied> rows, List<String> examples) {
        Map<String, Long> timesApplied = new HashMap<>();
        Map<String, List<Long>> appliedByOrder = new HashMap<>();
        long unexpected = 0;
        for (Applied row : rows) {
            Long recordedSequence = sequenceOf.get(row.eventId());
            if (recordedSequence == null || recordedSequence != row.sequence()) {
                unexpected++;
                Downstream.example(examples, "notification of " + row.eventId() + " (" + row.orderId() + " #"
                        + row.sequence() + ") is of no recorded event");
                continue;
            }
            if (timesApplied.merge(row.eventId(), 1L, Long::sum) == 1) {
                appliedByOrder.computeIfAbsent(row.orderId(), k -> new ArrayList<>()).add(row.sequence());
            }
        }
        long doubled = timesApplied.values().stream().mapToLong(n -> n - 1).sum();
        if (doubled > 0) {
            Downstream.example(examples, doubled + " notifications applied more than once");
        }
        long lost = sequenceOf.keySet().stream().filter(id -> !timesApplied.containsKey(id)).count();
        if (lost > 0) {
            Downstream.example(examples, lost + " recorded events never applied downstream");
        }
        long outOfOrder = 0;
        for (Map.Entry<String, List<Long>> e : appliedByOrder.entrySet()) {
            List<Long> sequences = e.getValue();
            for (int i = 1; i < sequences.size(); i++) {
                if (sequences.get(i) <= sequences.get(i - 1)) {
                    outOfOrder++;
                    Downstream.example(examples, "order " + e.getKey() + " notified in the order " + sequences);
                    break;
                }
            }
        }
        return new Tally(lost, doubled, outOfOrder, unexpected);
    }

    /**
     * Waits until the events queue is empty (in-flight messages included) and the downstream inbox has a PROCESSED
     * row for every published event, and both read the same {@link Quiescence#SETTLE} later; or nothing moved for
     * {@link Quiescence#STALL} (then says so through {@code note}).
     */
    static void awaitApplied(Sqs sqs, String eventsQueueUrl, String databaseUrl, Consumer<String> note)
            throws InterruptedException {
        List<Long> last = null;
        long lastChange = System.currentTimeMillis();
        while (true) {
            List<Long> now = look(sqs, eventsQueueUrl, databaseUrl);
            if (now.get(0) == 0 && now.get(1) >= 0 && now.get(1) >= now.get(2)) {
                Thread.sleep(Quiescence.SETTLE.toMillis());
                if (look(sqs, eventsQueueUrl, databaseUrl).equals(now)) {
                    return;
                }
            }
            if (!now.equals(last)) {
                last = now;
                lastChange = System.currentTimeMillis();
            } else if (System.currentTimeMillis() - lastChange > Quiescence.STALL.toMillis()) {
                note.accept("downstream: no progress for " + Quiescence.STALL.toMinutes() + " minutes: events queue "
                        + now.get(0) + ", applied " + now.get(1) + " of " + now.get(2) + " published");
                return;
            }
            Thread.sleep(250);
        }
    }

    /** The events queue's depth, the downstream inbox's PROCESSED rows and the published events (-1: not counted). */
    private static List<Long> look(Sqs sqs, String eventsQueueUrl, String databaseUrl) {
        long depth = sqs.depth(eventsQueueUrl);
        try {
            return List.of(depth, Db.queryLong(databaseUrl, "select count(*) from inbox_messages where consumer_name = '"
                    + CONSUMER + "' and status = 'PROCESSED'"),
                    Db.queryLong(databaseUrl, "select count(*) from outbox_events where published_at is not null"));
        } catch (SQLException e) {
            return List.of(depth, -1L, -1L);
        }
    }
}
