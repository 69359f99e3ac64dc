package dev.txinbox.ordering;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;

import org.hibernate.Session;

/**
 * {@code stream_state}: the last sequence consumed per (consumer, aggregate). Must run inside the
 * caller's JTA transaction; the row locks taken by {@link #lock} are held until it ends.
 */
@ApplicationScoped
public class StreamStateRepository {

    // One statement creates the streams on first sight and locks the existing rows, in the order of the sorted
    // input, so that two transactions locking overlapping sets never deadlock. DO UPDATE … WHERE false locks every
    // conflicting row (PostgreSQL takes the lock before it evaluates the condition) and writes no new version of
    // it: the version a locking update would write is the batch's one write of a stream that does not advance.
    // RETURNING then names only the new rows.
    private static final String LOCK = """
            insert into stream_state as s (consumer_name, aggregate_id, last_sequence, updated_at)
            select ?, a, 0, now() from unnest(?::text[]) with ordinality as t(a, n) order by n
            on conflict (consumer_name, aggregate_id) do update set updated_at = s.updated_at where false
            returning s.aggregate_id
            """;

    // The locked rows' positions: a statement of its own, whose snapshot is taken after the locks were granted, so
    // it sees what a transaction that held one before us committed.
    private static final String POSITIONS = """
            select aggregate_id, last_sequence from stream_state where consumer_name = ? and aggregate_id = any(?)
            """;

    private static final String ADVANCE = """
            update stream_state s set last_sequence = v.last, updated_at = now()
            from unnest(?::text[], ?::bigint[]) as v(aggregate_id, last)
            where s.consumer_name = ? and s.aggregate_id = v.aggregate_id
            """;

    private final EntityManager entityManager;

    public StreamStateRepository(EntityManager entityManager) {
        this.entityManager = entityManager;
    }

    /** Locks the streams for this transaction; returns each one's last consumed sequence (0 if new). */
    public Map<String, Long> lock(String consumer, Collection<String> aggregateIds) {
        Map<String, Long> last = new HashMap<>();
        if (aggregateIds.isEmpty()) {
            return last;
        }
        String[] sorted = new TreeSet<>(aggregateIds).toArray(String[]::new);
        session().doWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement(LOCK)) {
                ps.setString(1, consumer);
                ps.setArray(2, connection.createArrayOf("text", sorted));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        last.put(rs.getString(1), 0L);
                    }
                }
            }
            if (last.size() == sorted.length) {
                return;
            }
            try (PreparedStatement ps = connection.prepareStatement(POSITIONS)) {
                ps.setString(1, consumer);
                ps.setArray(2, connection.createArrayOf("text",
                        Arrays.stream(sorted).filter(a -> !last.containsKey(a)).toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        last.put(rs.getString(1), rs.getLong(2));
                    }
                }
            }
        });
        return last;
    }

    /** Records how far each stream got, in one statement. */
    public void advance(String consumer, Map<String, Long> lastSequences) {
        if (lastSequences.isEmpty()) {
            return;
        }
        String[] ids = lastSequences.keySet().toArray(String[]::new);
        Long[] values = new Long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            values[i] = lastSequences.get(ids[i]);
        }
        session().doWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement(ADVANCE)) {
                ps.setArray(1, connection.createArrayOf("text", ids));
                ps.setArray(2, connection.createArrayOf("bigint", values));
                ps.setString(3, consumer);
                ps.executeUpdate();
            }
        });
    }

    private Session session() {
        return entityManager.unwrap(Session.class);
    }
}
