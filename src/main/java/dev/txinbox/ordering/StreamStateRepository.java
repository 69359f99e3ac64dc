package dev.txinbox.ordering;

import java.sql.PreparedStatement;
import java.sql.ResultSet;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;

import org.hibernate.Session;

/**
 * {@code stream_state}: the last sequence consumed per (consumer, aggregate). Must run inside the
 * caller's JTA transaction; the row lock taken by {@link #lock} is held until it ends.
 */
@ApplicationScoped
public class StreamStateRepository {

    // One statement creates the stream on first sight and, on conflict, locks the existing row:
    // DO UPDATE takes the row lock even though it only touches updated_at.
    private static final String LOCK = """
            insert into stream_state as s (consumer_name, aggregate_id, last_sequence, updated_at)
            values (?, ?, 0, now())
            on conflict (consumer_name, aggregate_id) do update set updated_at = now()
            returning s.last_sequence
            """;

    private final EntityManager entityManager;

    public StreamStateRepository(EntityManager entityManager) {
        this.entityManager = entityManager;
    }

    /** Locks the stream for this transaction and returns its last consumed sequence (0 if new). */
    public long lock(String consumer, String aggregateId) {
        return session().doReturningWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement(LOCK)) {
                ps.setString(1, consumer);
                ps.setString(2, aggregateId);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }

    public void advance(String consumer, String aggregateId, long lastSequence) {
        session().doWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement(
                    "update stream_state set last_sequence = ?, updated_at = now()"
                            + " where consumer_name = ? and aggregate_id = ?")) {
                ps.setLong(1, lastSequence);
                ps.setString(2, consumer);
                ps.setString(3, aggregateId);
                ps.executeUpdate();
            }
        });
    }

    private Session session() {
        return entityManager.unwrap(Session.class);
    }
}
