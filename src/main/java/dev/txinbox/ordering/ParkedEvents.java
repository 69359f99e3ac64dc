package dev.txinbox.ordering;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;

import org.hibernate.Session;

/**
 * The parked rows of {@code inbox_messages}: events that arrived before their predecessor. Plain JDBC
 * on the transaction's connection, like the claim: these statements run once per event on the hot
 * path. Must run inside the caller's JTA transaction.
 */
@ApplicationScoped
class ParkedEvents {

    /** A parked event, as draining a stream needs it. */
    record Parked(long id, String messageId, long sequence, String body) {
    }

    private final EntityManager entityManager;

    ParkedEvents(EntityManager entityManager) {
        this.entityManager = entityManager;
    }

    void park(long id, String why) {
        update("update inbox_messages set status = 'PARKED', error_text = ?, processed_at = null where id = ?", why, id);
    }

    /** A parked event is done: applied, rejected or stale. */
    void finish(long id, String status, String text) {
        update("update inbox_messages set status = ?, error_text = ?, processed_at = now() where id = ?", status, text, id);
    }

    /** Applying a parked event failed: it stays parked, with the error and one attempt more. */
    void failed(long id, String error) {
        update("update inbox_messages set error_text = ?, attempt_count = attempt_count + 1 where id = ?", error, id);
    }

    /** Which of these streams have parked events: one indexed look-up for a whole batch. */
    Set<String> streamsWithParked(String consumer, Collection<String> aggregateIds) {
        Set<String> found = new HashSet<>();
        if (aggregateIds.isEmpty()) {
            return found;
        }
        session().doWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement("select distinct aggregate_id from inbox_messages"
                    + " where consumer_name = ? and aggregate_id = any(?) and status = 'PARKED'")) {
                ps.setString(1, consumer);
                ps.setArray(2, connection.createArrayOf("text", aggregateIds.toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        found.add(rs.getString(1));
                    }
                }
            }
        });
        return found;
    }

    /** The parked events of a stream, lowest sequence first (the earliest received first among equals). */
    List<Parked> parked(String consumer, String aggregateId) {
        return session().doReturningWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement("select id, message_id, sequence_number, body"
                    + " from inbox_messages where consumer_name = ? and aggregate_id = ? and status = 'PARKED'"
                    + " order by sequence_number, id")) {
                ps.setString(1, consumer);
                ps.setString(2, aggregateId);
                List<Parked> parked = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        parked.add(new Parked(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getString(4)));
                    }
                }
                return parked;
            }
        });
    }

    /**
     * Streams that have parked events, the longest-waiting first, at most {@code limit}: each with its last
     * consumed sequence, its parked sequences (ascending) and when the oldest of them was received. Of one
     * consumer or all (null), of one aggregate or all (null). For the operator: one pass over the parked rows
     * (a partial index), not on the hot path.
     */
    List<StreamOrdering.ParkedStream> streams(String consumer, String aggregateId, int limit) {
        return session().doReturningWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement("""
                    select m.consumer_name, m.aggregate_id, coalesce(max(s.last_sequence), 0),
                        array_agg(m.sequence_number order by m.sequence_number), min(m.received_at)
                    from inbox_messages m
                    left join stream_state s on s.consumer_name = m.consumer_name and s.aggregate_id = m.aggregate_id
                    where m.status = 'PARKED' and (?::text is null or m.consumer_name = ?)
                        and (?::text is null or m.aggregate_id = ?)
                    group by m.consumer_name, m.aggregate_id
                    order by min(m.received_at), m.consumer_name, m.aggregate_id
                    limit ?
                    """)) {
                ps.setString(1, consumer);
                ps.setString(2, consumer);
                ps.setString(3, aggregateId);
                ps.setString(4, aggregateId);
                ps.setInt(5, limit);
                List<StreamOrdering.ParkedStream> streams = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Long[] sequences = (Long[]) rs.getArray(4).getArray();
                        streams.add(new StreamOrdering.ParkedStream(rs.getString(1), rs.getString(2), rs.getLong(3),
                                List.of(sequences), rs.getTimestamp(5).toInstant()));
                    }
                }
                return streams;
            }
        });
    }

    /** The lowest parked sequence of a stream above {@code last}, if any. */
    Optional<Long> lowestAfter(String consumer, String aggregateId, long last) {
        return session().doReturningWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement("select min(sequence_number) from inbox_messages"
                    + " where consumer_name = ? and aggregate_id = ? and status = 'PARKED' and sequence_number > ?")) {
                ps.setString(1, consumer);
                ps.setString(2, aggregateId);
                ps.setLong(3, last);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    long lowest = rs.getLong(1);
                    return rs.wasNull() ? Optional.<Long>empty() : Optional.of(lowest);
                }
            }
        });
    }

    private void update(String sql, Object... args) {
        session().doWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement(sql)) {
                for (int i = 0; i < args.length; i++) {
                    ps.setObject(i + 1, args[i] instanceof String text ? storable(text) : args[i]);
                }
                ps.executeUpdate();
            }
        });
    }

    /** PostgreSQL refuses NUL in text; an error quoting a body may hold one. */
    private static String storable(String text) {
        return text.indexOf('\u0000') < 0 ? text : text.replace('\u0000', '\uFFFD');
    }

    private Session session() {
        return entityManager.unwrap(Session.class);
    }
}
