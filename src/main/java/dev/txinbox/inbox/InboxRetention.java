package dev.txinbox.inbox;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;

import org.hibernate.Session;

/**
 * The retention's deletes of {@code inbox_messages} and {@code inbox_attempts}, a batch per call, in the caller's
 * transaction. When they run, how much and by which pod is the caller's to decide ({@code ops.retention}); what may
 * go is decided here, with the tables.
 */
@ApplicationScoped
public class InboxRetention {

    /** Finished rows old enough to go, a batch at most, skipping rows another transaction holds. */
    private static final String DELETE_FINISHED = """
            with doomed as (
                select id from inbox_messages
                 where status = any (?) and processed_at < ?
                 limit ? for update skip locked),
            deleted as (
                delete from inbox_messages m using doomed where m.id = doomed.id returning m.consumer_name)
            select consumer_name, count(*) from deleted group by consumer_name
            """;

    private final EntityManager entityManager;

    public InboxRetention(EntityManager entityManager) {
        this.entityManager = entityManager;
    }

    /**
     * Deletes up to {@code limit} rows of these (finished) statuses that finished before {@code cutoff}, skipping
     * rows another transaction holds; returns how many went, by consumer. A row's deletion ends the deduplication
     * of its event id: the caller decides when that is safe. PARKED and FAILED entries still wait for something
     * and are never deleted.
     */
    public Map<String, Long> deleteFinished(Collection<InboxStatus> statuses, Instant cutoff, int limit) {
        if (statuses.contains(InboxStatus.PARKED) || statuses.contains(InboxStatus.FAILED)) {
            throw new IllegalArgumentException("PARKED and FAILED entries are not finished: " + statuses);
        }
        String[] names = statuses.stream().map(Enum::name).toArray(String[]::new);
        return session().doReturningWork(connection -> {
            Map<String, Long> counts = new HashMap<>();
            try (PreparedStatement ps = connection.prepareStatement(DELETE_FINISHED)) {
                ps.setArray(1, connection.createArrayOf("text", names));
                ps.setTimestamp(2, Timestamp.from(cutoff));
                ps.setInt(3, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        counts.put(rs.getString(1), rs.getLong(2));
                    }
                }
            }
            return counts;
        });
    }

    /** Deletes the attempt history, older than {@code cutoff}, of entries that are gone. */
    public void deleteOrphanedAttempts(Instant cutoff) {
        session().doWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement("delete from inbox_attempts a where a.failed_at < ?"
                    + " and not exists (select 1 from inbox_messages m where m.consumer_name = a.consumer_name"
                    + " and m.message_id = a.message_id)")) {
                ps.setTimestamp(1, Timestamp.from(cutoff));
                ps.executeUpdate();
            }
        });
    }

    private Session session() {
        return entityManager.unwrap(Session.class);
    }
}
