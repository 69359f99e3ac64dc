package dev.txinbox.harness;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The statements PostgreSQL executed for one consumer over a measured window, from pg_stat_statements:
 * its entries of the consumer's database are reset as the window opens and their calls summed as it
 * closes. With {@code track_utility} on, BEGIN, COMMIT, SAVEPOINT and RELEASE count as statements too,
 * as they cost a round trip each.
 * <p>
 * The harness reads and resets through the {@code postgres} database, so that its own calls fall outside
 * the consumer's database; a consumer that connects as a role of its own (the service, as
 * {@link Db#SERVICE_ROLE}) is counted by that role as well, which leaves out what the harness asks of
 * the same database (the concurrent mode's quiescence check counts inbox rows as {@code postgres}).
 * <p>
 * The library must be preloaded (bench/run and bench/ab see to it: bench/pg-stat-statements).
 * <p>
 * Transaction ends are added where pg_stat_statements misses them. The PostgreSQL JDBC driver sends BEGIN
 * unnamed with a transaction's first statement, but COMMIT and ROLLBACK as a named statement it prepares
 * once per connection; PostgreSQL 15's pg_stat_statements clears a cached utility statement's query id as
 * it first runs it, so it counts that COMMIT once per connection and never again (1 of 7 commits on one
 * connection, tried here). Every transaction the driver began it also ends, so the window's BEGINs less
 * the COMMITs and ROLLBACKs counted are the ends it missed: one line of their own in {@link Count#top}.
 */
public final class PgStatements {

    private static final String ADMIN_DB = "postgres";
    private static final int TOP = 12;
    private static final int QUERY_CHARS = 100;
    private static final Pattern BEGIN = Pattern.compile("(?is)\\s*(begin|start\\s+transaction)\\b.*");
    private static final Pattern END = Pattern.compile("(?i)\\s*(commit|rollback|end|abort)\\s*;?\\s*");
    static final String UNCOUNTED_ENDS = "COMMIT or ROLLBACK not counted by pg_stat_statements (one per BEGIN)";

    /**
     * One statement as pg_stat_statements normalises it, shortened, with its calls in the window: per message, and
     * the time PostgreSQL spent executing it, in microseconds per message (parse, protocol and commit not included).
     */
    public record Top(String query, long calls, double perMessage, double execMicrosPerMessage) {
    }

    /**
     * What one window counted, {@code uncountedEnds} included (the transaction ends pg_stat_statements
     * missed). {@code deallocated}: entries pg_stat_statements evicted meanwhile (anywhere in the cluster,
     * once it holds {@code pg_stat_statements.max}); when not 0, the count may be short.
     */
    public record Count(long calls, double perMessage, long uncountedEnds, long deallocated, List<Top> top,
            Writes writes) {
    }

    /**
     * The row versions the window wrote, per message: per table of the consumer's database, its inserts, updates
     * (of them HOT, which add no index entry) and deletes (pg_stat_user_tables, which backends report within a second
     * of a transaction's end, so a window's edges are blurred by that second); and the WAL the whole cluster wrote
     * (any other database's writes included: read it on a quiet server).
     */
    public record Writes(Map<String, double[]> perTable, double rowVersionsPerMessage, double walBytesPerMessage) {

        /** "table ins/upd(hot)/del" per message, tables that wrote nothing left out, the busiest first. */
        public String describe() {
            StringBuilder out = new StringBuilder();
            perTable.entrySet().stream()
                    .sorted((a, b) -> Double.compare(b.getValue()[0] + b.getValue()[1] + b.getValue()[3],
                            a.getValue()[0] + a.getValue()[1] + a.getValue()[3]))
                    .forEach(e -> {
                        double[] v = e.getValue();
                        out.append(out.isEmpty() ? "" : ", ").append(String.format("%s %.2f/%.2f(%.2f)/%.2f",
                                e.getKey(), v[0], v[1], v[2], v[3]));
                    });
            return out.toString();
        }
    }

    private final String database;
    private final String role;
    private final long deallocatedBefore;
    private final Map<String, long[]> tablesBefore;
    private final String walBefore;

    private PgStatements(String database, String role, long deallocatedBefore, Map<String, long[]> tablesBefore,
            String walBefore) {
        this.database = database;
        this.role = role;
        this.deallocatedBefore = deallocatedBefore;
        this.tablesBefore = tablesBefore;
        this.walBefore = walBefore;
    }

    /**
     * Fails unless the server has pg_stat_statements loaded and counting utility statements; creates the
     * extension where the harness reads it.
     */
    public static void requireLoaded() throws SQLException {
        String libraries = Db.queryString(Db.url(ADMIN_DB), "show shared_preload_libraries");
        if (!List.of(libraries.replace("\"", "").split("\\s*,\\s*")).contains("pg_stat_statements")) {
            throw new IllegalStateException("PostgreSQL does not load pg_stat_statements (shared_preload_libraries = '"
                    + libraries + "'): bench/pg-stat-statements adds it, as bench/run and bench/ab do");
        }
        if (!"on".equals(Db.queryString(Db.url(ADMIN_DB), "show pg_stat_statements.track_utility"))) {
            throw new IllegalStateException("pg_stat_statements.track_utility is off: transaction control and savepoints"
                    + " would not be counted (bench/pg-stat-statements turns it on)");
        }
        install(ADMIN_DB);
    }

    /** The extension in {@code database} too, where whoever looks into a run's database can query it. */
    public static void install(String database) throws SQLException {
        try (Connection db = Db.connect(Db.url(database));
                Statement s = db.createStatement()) {
            s.execute("create extension if not exists pg_stat_statements");
        }
    }

    /**
     * Opens a window: forgets what {@code database} ran so far (its entries only: the rest of the cluster is
     * not the run's). {@code role} null counts every role (a consumer that connects as the harness does).
     */
    public static PgStatements start(String database, String role) throws SQLException {
        try (Connection db = Db.connect(Db.url(ADMIN_DB));
                PreparedStatement reset = db.prepareStatement("select pg_stat_statements_reset(0,"
                        + " (select oid from pg_database where datname = ?), 0)")) {
            reset.setString(1, database);
            reset.executeQuery().close();
            return new PgStatements(database, role, deallocated(db), tables(database), wal(db));
        }
    }

    /** Closes the window: the consumer's statements since {@link #start}, per message of {@code messages}. */
    public Count end(long messages) throws SQLException {
        long perMessageOf = Math.max(1, messages);
        try (Connection db = Db.connect(Db.url(ADMIN_DB));
                PreparedStatement select = db.prepareStatement("select s.query, sum(s.calls)::bigint as calls,"
                        + " sum(s.total_exec_time) as exec_ms"
                        + " from pg_stat_statements s join pg_database d on d.oid = s.dbid"
                        + " where d.datname = ? and (?::text is null or s.userid = (select oid from pg_roles where rolname = ?))"
                        + " group by s.query")) {
            select.setString(1, database);
            select.setString(2, role);
            select.setString(3, role);
            long calls = 0;
            long begins = 0;
            long ends = 0;
            List<Top> all = new ArrayList<>();
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    String query = rs.getString(1);
                    long n = rs.getLong(2);
                    calls += n;
                    begins += begins(query) ? n : 0;
                    ends += ends(query) ? n : 0;
                    all.add(new Top(shorten(query), n, round((double) n / perMessageOf),
                            round(rs.getDouble(3) * 1000 / perMessageOf)));
                }
            }
            // Transactions open at either edge of the window make a few BEGINs and ends fall on different sides.
            long uncounted = Math.max(0, begins - ends);
            if (uncounted > 0) {
                calls += uncounted;
                all.add(new Top(UNCOUNTED_ENDS, uncounted, round((double) uncounted / perMessageOf), 0));
            }
            // The costliest first: a statement called once a batch may weigh more than one called per message.
            List<Top> top = all.stream().sorted(Comparator.comparingDouble(Top::execMicrosPerMessage).reversed()
                    .thenComparing(Comparator.comparingLong(Top::calls).reversed())).limit(TOP).toList();
            return new Count(calls, round((double) calls / perMessageOf), uncounted, deallocated(db) - deallocatedBefore,
                    top, writes(db, perMessageOf));
        }
    }

    private Writes writes(Connection admin, long perMessageOf) throws SQLException {
        long walBytes;
        try (PreparedStatement diff = admin.prepareStatement("select pg_wal_lsn_diff(pg_current_wal_lsn(), ?::pg_lsn)")) {
            diff.setString(1, walBefore);
            try (ResultSet rs = diff.executeQuery()) {
                rs.next();
                walBytes = rs.getLong(1);
            }
        }
        Map<String, double[]> perTable = new TreeMap<>();
        double versions = 0;
        for (Map.Entry<String, long[]> now : tables(database).entrySet()) {
            long[] was = tablesBefore.getOrDefault(now.getKey(), new long[4]);
            double[] delta = new double[4];
            for (int i = 0; i < 4; i++) {
                delta[i] = round((double) (now.getValue()[i] - was[i]) / perMessageOf);
            }
            if (delta[0] + delta[1] + delta[3] > 0) {
                perTable.put(now.getKey(), delta);
                versions += delta[0] + delta[1] + delta[3];
            }
        }
        return new Writes(perTable, round(versions), round((double) walBytes / perMessageOf));
    }

    /** Per table of {@code database}: inserted, updated, HOT-updated and deleted rows since the server started. */
    private static Map<String, long[]> tables(String database) throws SQLException {
        Map<String, long[]> tables = new TreeMap<>();
        try (Connection db = Db.connect(Db.url(database)); Statement s = db.createStatement();
                ResultSet rs = s.executeQuery("select relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del"
                        + " from pg_stat_user_tables")) {
            while (rs.next()) {
                tables.put(rs.getString(1), new long[] { rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5) });
            }
        }
        return tables;
    }

    private static String wal(Connection db) throws SQLException {
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("select pg_current_wal_lsn()::text")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** Whether {@code query} (as pg_stat_statements shows it) opens a transaction. */
    static boolean begins(String query) {
        return BEGIN.matcher(query).matches();
    }

    /** Whether {@code query} ends a transaction (a rollback to a savepoint does not). */
    static boolean ends(String query) {
        return END.matcher(query).matches();
    }

    private static long deallocated(Connection db) throws SQLException {
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("select dealloc from pg_stat_statements_info")) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    private static String shorten(String query) {
        String oneLine = query.replaceAll("\\s+", " ").trim();
        return oneLine.length() <= QUERY_CHARS ? oneLine : oneLine.substring(0, QUERY_CHARS - 3) + "...";
    }

    private static double round(double value) {
        return Math.round(value * 1000) / 1000.0;
    }
}
