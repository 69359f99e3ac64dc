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
import java.util.TreeMap;

/**
 * Compares what a consumer left in PostgreSQL with the oracle.
 * <ul>
 * <li><b>lost</b>: events whose effect is missing: an order not in its expected final state (missing,
 * wrong status, amount or payment), or (for txinbox) an event with no PROCESSED inbox row;</li>
 * <li><b>doubled</b>: effects applied more than once: payment audit rows beyond one per paid order;</li>
 * <li><b>unexplained</b>: inbox rows in no final state (PARKED, FAILED) once the queue is empty.</li>
 * </ul>
 */
public final class Verifier {

    public record Verdict(long lostEvents, long wrongOrders, long doubled, long unexplained,
            Map<String, Long> inboxByStatus, long deadLetters, List<String> examples) {

        public boolean exactlyOnce() {
            return lostEvents == 0 && wrongOrders == 0 && doubled == 0 && unexplained == 0;
        }

        /** This verdict with {@code note} first among its examples: a fact the check found beside the oracle's. */
        public Verdict noting(String note) {
            List<String> noted = new ArrayList<>(List.of(note));
            noted.addAll(examples);
            return new Verdict(lostEvents, wrongOrders, doubled, unexplained, inboxByStatus, deadLetters, noted);
        }
    }

    /**
     * Ids of history loaded into the inbox before a stream (the benchmark's scale point, {@code OldRows}):
     * no stream's ids start so, and the check leaves those rows out.
     */
    public static final String HISTORY_ID_PREFIX = "old-";

    private Verifier() {
    }

    /**
     * txinbox's own schema: the orders inbox must hold every event as PROCESSED, poison as DEAD (when it had an id).
     * (The notifications consumer downstream, when it runs, has its verdict of its own: {@link Chain}.)
     */
    public static Verdict txinbox(String jdbcUrl, Oracle oracle, long dlqDepth) throws SQLException {
        try (Connection db = Db.connect(jdbcUrl)) {
            List<String> examples = new ArrayList<>();
            Map<String, Long> byStatus = new TreeMap<>();
            Set<String> processed = new HashSet<>();
            // A scale point's pre-loaded history is no part of the stream (and 10 M ids would not fit in memory).
            try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("select message_id, status"
                    + " from inbox_messages where consumer_name = 'orders' and message_id not like '" + HISTORY_ID_PREFIX
                    + "%'")) {
                while (rs.next()) {
                    byStatus.merge(rs.getString(2), 1L, Long::sum);
                    if ("PROCESSED".equals(rs.getString(2))) {
                        processed.add(rs.getString(1));
                    }
                }
            }
            long lost = 0;
            for (String id : oracle.eventIds()) {
                if (!processed.contains(id)) {
                    lost++;
                    example(examples, "event " + id + " has no PROCESSED inbox row");
                }
            }
            long unexplained = byStatus.getOrDefault("PARKED", 0L) + byStatus.getOrDefault("FAILED", 0L);
            long wrong = compareOrders(db, oracle, examples);
            long doubled = doubledPayments(db, examples);
            if (dlqDepth != oracle.poisonMessages()) {
                example(examples, "dead-letter queue holds " + dlqDepth + " messages, expected " + oracle.poisonMessages());
            }
            return new Verdict(lost, wrong, doubled, unexplained + Math.abs(dlqDepth - oracle.poisonMessages()), byStatus,
                    dlqDepth, examples);
        }
    }

    /** The naive consumer's tables: only the business state can be compared. */
    public static Verdict naive(String jdbcUrl, Oracle oracle) throws SQLException {
        try (Connection db = Db.connect(jdbcUrl)) {
            List<String> examples = new ArrayList<>();
            long wrong = compareOrders(db, oracle, examples);
            long doubled = doubledPayments(db, examples);
            return new Verdict(wrong, wrong, doubled, 0, Map.of(), 0, examples);
        }
    }

    /**
     * The Camel baseline's tables: the business state, without the payment audit it does not write (so a payment
     * applied twice cannot be told from once; the oracle's counts of doubled effects do not apply).
     */
    public static Verdict camel(String jdbcUrl, Oracle oracle) throws SQLException {
        try (Connection db = Db.connect(jdbcUrl)) {
            List<String> examples = new ArrayList<>();
            long wrong = compareOrders(db, oracle, examples, false);
            return new Verdict(wrong, wrong, 0, 0, Map.of(), 0, examples);
        }
    }

    private static long compareOrders(Connection db, Oracle oracle, List<String> examples) throws SQLException {
        return compareOrders(db, oracle, examples, true);
    }

    private static long compareOrders(Connection db, Oracle oracle, List<String> examples, boolean audits)
            throws SQLException {
        Map<String, String> actual = new HashMap<>();
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery(!audits
                ? "select id, status, amount, currency, paid_amount, 0 from orders"
                // One pass over each table: the naive consumer's schema has no index on payment_audit.order_id, and
                // a count per order scanned the whole table once per order (minutes after a 150k warm-up).
                : "select o.id, o.status, o.amount, o.currency, o.paid_amount, coalesce(a.payments, 0) from orders o"
                        + " left join (select order_id, count(*) as payments from payment_audit group by order_id) a"
                        + " on a.order_id = o.id")) {
            while (rs.next()) {
                Long paid = rs.getObject(5) == null ? null : rs.getLong(5);
                actual.put(rs.getString(1), describe(rs.getString(2), rs.getLong(3), rs.getString(4).trim(), paid,
                        rs.getInt(6)));
            }
        }
        long wrong = 0;
        for (Map.Entry<String, Oracle.ExpectedOrder> entry : oracle.orders().entrySet()) {
            Oracle.ExpectedOrder e = entry.getValue();
            String expected = describe(e.status(), e.amount(), e.currency(), e.paidAmount(), audits ? e.auditRows() : 0);
            String got = actual.get(entry.getKey());
            if (!expected.equals(got)) {
                wrong++;
                example(examples, "order " + entry.getKey() + ": expected " + expected + ", found " + got);
            }
        }
        return wrong;
    }

    private static long doubledPayments(Connection db, List<String> examples) throws SQLException {
        long doubled = 0;
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery(
                "select order_id, count(*) from payment_audit group by order_id having count(*) > 1")) {
            while (rs.next()) {
                doubled += rs.getLong(2) - 1;
                example(examples, "order " + rs.getString(1) + " has " + rs.getLong(2) + " payment audit rows");
            }
        }
        return doubled;
    }

    private static String describe(String status, long amount, String currency, Long paid, int audits) {
        return status + " " + amount + " " + currency + " paid=" + paid + " audits=" + audits;
    }

    private static void example(List<String> examples, String text) {
        if (examples.size() < 10) {
            examples.add(text);
        }
    }
}
