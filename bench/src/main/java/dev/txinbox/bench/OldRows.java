package dev.txinbox.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import dev.txinbox.harness.Db;
import dev.txinbox.harness.Verifier;

/**
 * The scale point's history: N inbox rows a long-running consumer would have left behind (PROCESSED,
 * 1 to 13 days old, inside the default retention, short bodies), so that the claim's unique index and the table are the size of a real
 * inbox's, not of an empty one. Their message ids ({@code old-0000000001}) cannot meet the stream's
 * ({@code evt-…}); zero-padded, they arrive in index order, which keeps the load fast (~170k rows/s here).
 */
public final class OldRows {

    /** What the harness leaves out when it checks a run against the oracle. */
    public static final String ID_PREFIX = Verifier.HISTORY_ID_PREFIX;

    /** How long the pre-load took, and what it left on disk (table with its indexes). */
    public record Load(long rows, double insertSeconds, double vacuumSeconds, double totalSeconds, long tableBytes) {
    }

    private OldRows() {
    }

    /** Inserts {@code count} rows into txinbox's (already migrated) inbox, then VACUUM ANALYZE and a checkpoint. */
    public static Load load(String jdbcUrl, long count) throws SQLException {
        long started = System.nanoTime();
        try (Connection db = Db.connect(jdbcUrl);
                Statement s = db.createStatement()) {
            // One statement: a single transaction and no round trips; 100 ms apart puts 10 M rows in ~12 days,
            // all younger than the default retention (14 days): retention must find nothing to delete in the
            // window (it deleted every old row while the first 10 M run was measured).
            s.execute("insert into inbox_messages (consumer_name, message_id, status, event_type, aggregate_id,"
                    + " sequence_number, payload_hash, body, attempt_count, received_at, processed_at)"
                    + " select 'orders', '" + ID_PREFIX + "' || lpad(g::text, 10, '0'), 'PROCESSED', 'ORDER_CREATED',"
                    + " 'old-ord-' || g, 1, md5(g::text), '{}', 1,"
                    + " now() - interval '13 days' + g * interval '100 ms',"
                    + " now() - interval '13 days' + g * interval '100 ms'"
                    + " from generate_series(1, " + count + ") g");
            long inserted = System.nanoTime();
            // A real inbox of this size has been vacuumed and analysed long ago: the planner must see its size,
            // and the run must not pay for setting hint bits on the first touch (nor autovacuum, where it is on).
            s.execute("vacuum (analyze) inbox_messages");
            long vacuumed = System.nanoTime();
            // The load's dirty pages must not be written by the checkpointer inside the measured window.
            s.execute("checkpoint");
            long bytes;
            try (ResultSet rs = s.executeQuery("select pg_total_relation_size('inbox_messages')")) {
                rs.next();
                bytes = rs.getLong(1);
            }
            return new Load(count, (inserted - started) / 1e9, (vacuumed - inserted) / 1e9,
                    (System.nanoTime() - started) / 1e9, bytes);
        }
    }
}
