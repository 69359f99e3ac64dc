package dev.txinbox.harness;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the orders handler recorded in the outbox, against what it applied: the first half of every downstream
 * verdict, whoever reads the events afterwards (the queue drained, {@link Downstream}; the notifications consumer,
 * {@link Chain}). The handler records exactly one event per event it applies, naming it ({@code payload.causedBy}).
 *
 * @param sequenceOf each recorded event's sequence, by event id
 * @param pending    events never published (or given up by an operator: skipped)
 * @param gaps       orders whose recorded sequences are not 1 … n
 * @param doubled    applied events that caused more than one outbox event
 * @param missing    applied events that caused none
 */
record Recorded(Map<String, Long> sequenceOf, long pending, long gaps, long doubled, long missing) {

    static Recorded read(String databaseUrl, List<String> examples) throws SQLException {
        Map<String, Long> sequenceOf = new HashMap<>();
        Map<String, List<Long>> byOrder = new HashMap<>();
        try (Connection db = Db.connect(databaseUrl); Statement s = db.createStatement()) {
            try (ResultSet rs = s.executeQuery(
                    "select id::text, aggregateid, sequence from outbox_events order by aggregateid, sequence")) {
                while (rs.next()) {
                    sequenceOf.put(rs.getString(1), rs.getLong(3));
                    byOrder.computeIfAbsent(rs.getString(2), k -> new ArrayList<>()).add(rs.getLong(3));
                }
            }
            long pending = count(s, "select count(*) from outbox_events where published_at is null or skipped_at is not null");
            long doubled = count(s, "select count(*) from (select payload->>'causedBy' from outbox_events"
                    + " group by 1 having count(*) > 1) d");
            long missing = count(s, "select count(*) from inbox_messages m where m.consumer_name = 'orders'"
                    + " and m.status = 'PROCESSED' and not exists (select 1 from outbox_events o"
                    + " where o.payload->>'causedBy' = m.message_id)");
            if (doubled > 0) {
                Downstream.example(examples, doubled + " applied events caused more than one outbox event");
            }
            if (missing > 0) {
                Downstream.example(examples, missing + " applied events caused no outbox event");
            }
            long gaps = 0;
            for (Map.Entry<String, List<Long>> e : byOrder.entrySet()) {
                if (!isOneToN(e.getValue())) {
                    gaps++;
                    Downstream.example(examples, "order " + e.getKey() + " recorded sequences " + e.getValue());
                }
            }
            return new Recorded(sequenceOf, pending, gaps, doubled, missing);
        }
    }

    /** 1, 2, 3 … n, in this order. */
    static boolean isOneToN(List<Long> sequences) {
        for (int i = 0; i < sequences.size(); i++) {
            if (sequences.get(i) != i + 1) {
                return false;
            }
        }
        return true;
    }

    static long count(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
