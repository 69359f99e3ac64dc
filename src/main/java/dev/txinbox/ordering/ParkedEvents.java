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
 * Reads of the parked rows of {@code inbox_messages}: events that arrived before their predecessor. Their
 * states are the inbox's to write; ordering only finds them. Plain JDBC on the transaction's connection, like
 * the claim. Must run inside the caller's JTA transaction.
 */
@ApplicationScoped
class ParkedEvents {

    private final EntityManager entityManager;

    ParkedEvents(EntityManager entityManager) {
        this.entityManager = entityManager;
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
    List<ParkedRun.Parked> parked(String consumer, String aggregateId) {
        return session().doReturningWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement("select id, message_id, sequence_number, body"
                    + " from inbox_messages where consumer_name = ? and aggregate_id = ? and status = 'PARKED'"
                    + " order by sequence_number, id")) {
                ps.setString(1, consumer);
                ps.setString(2, aggregateId);
                List<ParkedRun.Parked> parked = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        parked.add(new ParkedRun.Parked(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getString(4)));
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

    private Session session() {
        return entityManager.unwrap(Session.class);
    }
}
