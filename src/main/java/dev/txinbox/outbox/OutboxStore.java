package dev.txinbox.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.UUID;

import org.jboss.logging.Logger;

/**
 * The relay's side of {@code outbox_events}, on a session of its own (not the pool's: the session holds the
 * partition locks): the heads to send, page by page, and what became of them, published or refused.
 */
final class OutboxStore {

    // The relay's category: what operators filter and alert on.
    private static final Logger LOG = Logger.getLogger(OutboxRelay.class);

    /** Heads read per round; a full page means there is more to send at once. */
    static final int HEADS_PER_ROUND = 200;

    // The limit sits on the heads themselves, not on the due ones among them: so the planner reads the pending
    // index in order and stops after a page, where a limit above the due filter let it read and sort whole
    // partitions. Heads still backing off come back marked not due, and count towards the page.
    private static final String HEADS = """
            select distinct on (partition, aggregateid) id, aggregatetype, aggregateid, type, timestamp, payload::text,
                   sequence, attempts, partition, tracingspancontext,
                   next_attempt_at is null or next_attempt_at <= now() as due
              from outbox_events
             where partition = any (?) and (partition, aggregateid) > (?, ?)
               and published_at is null and skipped_at is null
             order by partition, aggregateid, sequence
             limit ?
            """;

    /**
     * A page of heads and where it stands in the walk.
     *
     * @param fromStart the page began at the first aggregate
     * @param wrapped the page was short, so the walk ends with it and the next begins again at the first aggregate
     */
    record Page(List<Head> heads, boolean fromStart, boolean wrapped) {

        /**
         * Whether the relay should read again at once: something was published (its successor may be due now), the
         * page was full, or the walk began mid-way and so has aggregates before this page still to look at.
         */
        boolean more(boolean published) {
            return published || !wrapped || !fromStart;
        }
    }

    private final OutboxRelay.Connector connector;
    private final boolean deleteOnPublish;
    private Connection connection;
    /** Where the last page ended: its last (partition, aggregate id); (-1, "") starts from the first. */
    private int afterPartition = -1;
    private String afterAggregate = "";

    /** {@code deleteOnPublish}: no published history kept ({@code txinbox.outbox.keep-published}). */
    OutboxStore(OutboxRelay.Connector connector, boolean deleteOnPublish) {
        this.connector = connector;
        this.deleteOnPublish = deleteOnPublish;
    }

    /** Opens the session unless it is open; true when it opened one (a session before it may have ended). */
    boolean open() throws SQLException {
        if (connection != null) {
            return false;
        }
        connection = connector.open();
        connection.setAutoCommit(true);
        return true;
    }

    Connection connection() {
        return connection;
    }

    /** Ends the session, and with it every lock it held. */
    void close() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                LOG.debugf("closing the relay's connection: %s", e.getMessage());
            }
            connection = null;
        }
    }

    /**
     * The next page of due heads of {@code partitions}' pending streams, in (partition, aggregate id) order after
     * where the last page ended: the pending index yields them in that order, so one statement reads a page across
     * all owned partitions, and a page costs the rows of its own aggregates, however long the backlog behind it.
     * Walking page by page serves every aggregate once per pass.
     */
    Page nextPage(NavigableSet<Integer> partitions) throws SQLException {
        boolean fromStart = afterPartition < 0;
        List<Head> heads = new ArrayList<>();
        int read = 0;
        String lastAggregate = "";
        int lastPartition = -1;
        // Only the partitions from where the last page ended: a partition before it, named in the array, is an
        // index range of its own, which the row comparison does not bound, so it would be read to its end.
        Object[] from = partitions.tailSet(afterPartition, true).toArray();
        try (PreparedStatement ps = connection.prepareStatement(HEADS)) {
            ps.setArray(1, connection.createArrayOf("integer", from));
            ps.setInt(2, afterPartition);
            ps.setString(3, afterAggregate);
            ps.setInt(4, HEADS_PER_ROUND);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    read++;
                    lastAggregate = rs.getString(3);
                    lastPartition = rs.getInt(9);
                    if (rs.getBoolean(11)) {
                        heads.add(new Head(rs.getObject(1, UUID.class), rs.getString(2), lastAggregate,
                                rs.getString(4), rs.getTimestamp(5).toInstant(), rs.getString(6), rs.getLong(7),
                                rs.getInt(8), lastPartition, rs.getString(10)));
                    }
                }
            }
        }
        boolean wrapped = read < HEADS_PER_ROUND;
        afterPartition = wrapped ? -1 : lastPartition;
        afterAggregate = wrapped ? "" : lastAggregate;
        return new Page(heads, fromStart, wrapped);
    }

    /** Marks the events published (or deletes them), in one statement. */
    void markPublished(List<UUID> ids) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(deleteOnPublish
                ? "delete from outbox_events where id = any (?)"
                : "update outbox_events set published_at = now(), next_attempt_at = null where id = any (?)")) {
            ps.setArray(1, connection.createArrayOf("uuid", ids.toArray()));
            ps.executeUpdate();
        }
    }

    /** Counts a refusal of the event: its attempts, why, and when its aggregate may try again. */
    void refused(UUID id, int attempts, String reason, Instant nextAttemptAt) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("update outbox_events set attempts = ?,"
                + " last_error = ?, next_attempt_at = ? where id = ? and published_at is null")) {
            ps.setInt(1, attempts);
            ps.setString(2, reason);
            ps.setTimestamp(3, Timestamp.from(nextAttemptAt));
            ps.setObject(4, id);
            ps.executeUpdate();
        }
    }
}
