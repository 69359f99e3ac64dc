package dev.txinbox.outbox;

import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.transaction.TransactionSynchronizationRegistry;

import org.hibernate.Session;

import dev.txinbox.sql.AfterCommit;
import dev.txinbox.sql.Columns;
import io.quarkus.narayana.jta.QuarkusTransaction;

/**
 * What an operator sees of the outbox and does to it: the waiting streams (aggregates whose next event the broker
 * refused), and for one of them a retry now or a skip of the event at its head; the backlog's numbers behind
 * readiness and the gauges; and the retention's deletes.
 */
@ApplicationScoped
public class OutboxOperations {

    /** The event an aggregate waits at. */
    public record Waiting(String aggregateType, String aggregateId, UUID eventId, String type, long sequence,
            int attempts, String lastError, Instant nextAttemptAt, Instant recordedAt, long pendingBehind) {
    }

    private static final String WAITING = """
            select h.aggregatetype, h.aggregateid, h.id, h.type, h.sequence, h.attempts, h.last_error,
                   h.next_attempt_at, h.timestamp,
                   (select count(*) from outbox_events b where b.partition = h.partition
                       and b.aggregateid = h.aggregateid and b.sequence > h.sequence
                       and b.published_at is null and b.skipped_at is null)
              from (select distinct on (aggregateid) * from outbox_events
                     where published_at is null and skipped_at is null
                     order by aggregateid, sequence) h
             where h.attempts > 0 %s
             order by h.timestamp
             limit ?1
            """;

    private static final String DELETE_DONE = """
            delete from outbox_events where id in (
                select id from outbox_events
                 where timestamp < ? and (published_at is not null or skipped_at is not null)
                 limit ? for update skip locked)
            """;
    private static final String DELETE_OLD = """
            delete from outbox_events where id in (
                select id from outbox_events where timestamp < ? limit ? for update skip locked)
            """;

    /** What is pending: not yet published nor skipped. */
    private static final String PENDING = """
            select count(*),
                   coalesce(extract(epoch from now() - min(timestamp)), 0),
                   count(distinct aggregateid) filter (where attempts > 0)
              from outbox_events where published_at is null and skipped_at is null""";

    private final EntityManager entityManager;
    private final EmbeddedRelay relay;
    private final TransactionSynchronizationRegistry transaction;

    public OutboxOperations(EntityManager entityManager, EmbeddedRelay relay,
            TransactionSynchronizationRegistry transaction) {
        this.entityManager = entityManager;
        this.relay = relay;
        this.transaction = transaction;
    }

    public List<Waiting> waiting(int limit) {
        return query(WAITING.formatted(""), limit, null);
    }

    public Optional<Waiting> waiting(String aggregateId) {
        return query(WAITING.formatted("and h.aggregateid = ?2"), 1, aggregateId).stream().findFirst();
    }

    /** The backlog's numbers: events pending, the oldest's age, aggregates waiting at a refused event. */
    public record Backlog(long pending, double oldestPendingSeconds, long waitingStreams) {
    }

    /** What is pending now, in one query, in the caller's transaction. */
    public Backlog backlog() {
        Object[] row = (Object[]) entityManager.createNativeQuery(PENDING, Object[].class).getSingleResult();
        return new Backlog(((Number) row[0]).longValue(), Math.max(0, ((Number) row[1]).doubleValue()),
                ((Number) row[2]).longValue());
    }

    /**
     * The waiting event of the aggregate is due now; empty when the aggregate waits at nothing. Like {@link #skip},
     * runs in the caller's transaction if it has one (an operator's audit line commits with it), and wakes the
     * relay when that commits.
     */
    public Optional<Waiting> retry(String aggregateId) {
        return settle(aggregateId, "next_attempt_at = now()");
    }

    /**
     * Gives up on the waiting event of the aggregate: it is never sent, and the aggregate's next event goes next
     * (its consumers see a gap in {@code sequence}). Empty when the aggregate waits at nothing.
     */
    public Optional<Waiting> skip(String aggregateId) {
        return settle(aggregateId, "skipped_at = now()");
    }

    /**
     * Deletes up to {@code limit} events recorded before {@code cutoff}, skipping rows another transaction holds;
     * only published or skipped ones when {@code doneOnly}. Returns how many went. Runs in the caller's
     * transaction. The sequence counters stay: they must never hand out a number again.
     */
    public int deleteRecordedBefore(Instant cutoff, boolean doneOnly, int limit) {
        return entityManager.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement(doneOnly ? DELETE_DONE : DELETE_OLD)) {
                ps.setTimestamp(1, Timestamp.from(cutoff));
                ps.setInt(2, limit);
                return ps.executeUpdate();
            }
        });
    }

    /**
     * Sets {@code assignment} on the event the aggregate waits at, if it still waits when the update takes the row:
     * the relay may have published it (a retry came due) or another operator settled it since it was read, and
     * then the answer is empty, as it would have been a moment later.
     */
    private Optional<Waiting> settle(String aggregateId, String assignment) {
        return QuarkusTransaction.joiningExisting().call(() -> {
            Optional<Waiting> waiting = waiting(aggregateId);
            if (waiting.isEmpty() || entityManager.createNativeQuery("update outbox_events set " + assignment
                    + " where id = ?1 and published_at is null and skipped_at is null")
                    .setParameter(1, waiting.get().eventId()).executeUpdate() == 0) {
                return Optional.<Waiting>empty();
            }
            AfterCommit.run(transaction, () -> relay.relay().ifPresent(OutboxRelay::wake));
            return waiting;
        });
    }

    private List<Waiting> query(String sql, int limit, String aggregateId) {
        return QuarkusTransaction.joiningExisting().call(() -> {
            var query = entityManager.createNativeQuery(sql, Object[].class).setParameter(1, limit);
            if (aggregateId != null) {
                query.setParameter(2, aggregateId);
            }
            List<Waiting> result = new ArrayList<>();
            for (Object row : query.getResultList()) {
                Object[] r = (Object[]) row;
                result.add(new Waiting((String) r[0], (String) r[1], (UUID) r[2], (String) r[3],
                        ((Number) r[4]).longValue(), ((Number) r[5]).intValue(), (String) r[6], Columns.instant(r[7]),
                        Columns.instant(r[8]), ((Number) r[9]).longValue()));
            }
            return result;
        });
    }
}
