package dev.txinbox.inbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import org.hibernate.Session;

import dev.txinbox.sql.Columns;
import io.quarkus.narayana.jta.QuarkusTransaction;

/**
 * What operators read of the inbox, for the admin API, the console and the statistics behind health: every
 * query on {@code inbox_messages} (and an entry's attempts, and the parked streams' positions) that is not the
 * hot path's, and the look-up of one entry a replay starts from ({@link #findEntry}). Read-only; each read runs
 * in a transaction of its own, or none, except {@link #findEntry}, which runs in the caller's.
 */
@ApplicationScoped
public class InboxReadModel {

    /** Which entries to list; null fields do not filter, an empty status set neither. */
    public record EntryFilter(Set<InboxStatus> statuses, String consumer, String aggregateId, Instant from, Instant to) {
    }

    /** A page of entries, newest first. */
    public record EntryPage(List<InboxMessage> items, int page, int size, boolean hasMore) {
    }

    /** An entry with its attempt history, first attempt first. */
    public record EntryDetail(InboxMessage entry, List<InboxAttempt> attempts) {
    }

    /** Entries of one status waiting for something: how many, and when the oldest was received. */
    public record Unfinished(long count, Instant oldestReceivedAt) {
    }

    /** One cause of one consumer: how many entries have it, by status, when it was first and last seen. */
    public record FailureGroup(String consumer, String id, String cause, long failed, long dead, Instant firstSeen,
            Instant lastSeen, List<String> examples) {

        public long total() {
            return failed + dead;
        }
    }

    /** An entry of a failure group. */
    public record FailureMember(String messageId, String status) {
    }

    /**
     * A stream with parked events, as an operator sees it: how far it got, what waits, and since when.
     *
     * @param lastApplied the last sequence consumed (applied, rejected or skipped by a release)
     * @param parked      the parked sequences, ascending (a sequence parked twice appears twice)
     */
    public record ParkedStream(String consumer, String aggregateId, long lastApplied, List<Long> parked,
            Instant oldestParkedAt) {

        /**
         * The sequences the stream waits for, as inclusive ranges {from, to}: from the one after the last
         * applied up to the highest parked, less those parked. The first range is what a release skips.
         */
        public List<long[]> missing() {
            List<long[]> ranges = new ArrayList<>();
            long expected = lastApplied + 1;
            for (long sequence : new TreeSet<>(parked)) {
                if (sequence > expected) {
                    ranges.add(new long[] { expected, sequence - 1 });
                }
                expected = Math.max(expected, sequence + 1);
            }
            return ranges;
        }
    }

    /**
     * A failure's cause: its error text with the entry's own event id and aggregate id, UUIDs (SQS message ids)
     * and every word holding a digit (numbers, generated ids, positions) replaced, white space folded. Ids
     * shorter than 4 characters are left alone. Done in SQL, so that grouping takes one pass over the rows
     * whatever their number.
     */
    private static final String CAUSE = """
            regexp_replace(regexp_replace(regexp_replace(
                case when length(coalesce(aggregate_id, '')) >= 4
                    then replace(case when length(message_id) >= 4 then replace(coalesce(error_text, ''), message_id, '<id>')
                        else coalesce(error_text, '') end, aggregate_id, '<id>')
                    else case when length(message_id) >= 4 then replace(coalesce(error_text, ''), message_id, '<id>')
                        else coalesce(error_text, '') end end,
                '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}', '<id>', 'g'),
                '[A-Za-z_]*[0-9][A-Za-z0-9_]*', '#', 'g'),
                '\\s+', ' ', 'g')
            """;

    private static final String FAILURES = "select consumer_name, message_id, status, received_at,"
            + " coalesce(processed_at, received_at) as last_at, " + CAUSE + " as cause from inbox_messages"
            + " where status in ('FAILED', 'DEAD')";

    private final InboxRepository repository;
    private final DataSource dataSource;

    public InboxReadModel(InboxRepository repository, DataSource dataSource) {
        this.repository = repository;
        this.dataSource = dataSource;
    }

    /** One entry, by its consumer and event id; in the caller's transaction. */
    public Optional<InboxMessage> findEntry(String consumer, String messageId) {
        return repository.find("consumerName = ?1 and messageId = ?2", consumer, messageId).firstResultOptional();
    }

    /** Entries by consumer and status, for every consumer that has any. */
    public Map<String, Map<String, Long>> countsByStatus() {
        Map<String, Map<String, Long>> counts = new TreeMap<>();
        List<Object[]> rows = QuarkusTransaction.requiringNew().call(() -> repository.getEntityManager()
                .createQuery("select m.consumerName, m.status, count(m) from InboxMessage m group by 1, 2", Object[].class)
                .getResultList());
        for (Object[] row : rows) {
            counts.computeIfAbsent((String) row[0], c -> new TreeMap<>()).put(row[1].toString(), (Long) row[2]);
        }
        return counts;
    }

    public EntryPage entries(EntryFilter filter, int page, int size) {
        StringBuilder where = new StringBuilder("1 = 1");
        Map<String, Object> parameters = new HashMap<>();
        if (filter.statuses() != null && !filter.statuses().isEmpty()) {
            where.append(" and status in :statuses");
            parameters.put("statuses", filter.statuses());
        }
        if (filter.consumer() != null) {
            where.append(" and consumerName = :consumer");
            parameters.put("consumer", filter.consumer());
        }
        if (filter.aggregateId() != null) {
            where.append(" and aggregateId = :aggregate");
            parameters.put("aggregate", filter.aggregateId());
        }
        if (filter.from() != null) {
            where.append(" and receivedAt >= :from");
            parameters.put("from", filter.from());
        }
        if (filter.to() != null) {
            where.append(" and receivedAt < :to");
            parameters.put("to", filter.to());
        }
        // One row more than asked for says whether there is a next page.
        List<InboxMessage> found = QuarkusTransaction.requiringNew().call(() -> repository
                .find(where + " order by id desc", parameters).range(page * size, page * size + size).list());
        return new EntryPage(found.subList(0, Math.min(size, found.size())), page, size, found.size() > size);
    }

    public Optional<EntryDetail> entry(String consumer, String messageId) {
        return QuarkusTransaction.requiringNew().call(() -> findEntry(consumer, messageId)
                .map(entry -> new EntryDetail(entry, InboxAttempt
                        .<InboxAttempt> list("consumerName = ?1 and messageId = ?2 order by attempt", consumer, messageId))));
    }

    /** The status an entry has now; empty when the consumer has no such entry. */
    public Optional<String> status(String consumer, String messageId) {
        return QuarkusTransaction.requiringNew().call(() -> findEntry(consumer, messageId)
                .map(e -> e.status.name()));
    }

    /**
     * The PARKED and FAILED entries of a consumer, by status (a status without entries is absent). Plain JDBC
     * outside any transaction: the statistics refresh calls it on a schedule, and a database that does not
     * answer is something it reports, not an error.
     */
    public Map<InboxStatus, Unfinished> unfinished(String consumer) throws SQLException {
        Map<InboxStatus, Unfinished> result = new LinkedHashMap<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
                "select status, count(*), min(received_at) from inbox_messages where consumer_name = ?"
                        + " and status in ('PARKED', 'FAILED') group by status")) {
            ps.setString(1, consumer);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    result.put(InboxStatus.valueOf(rs.getString(1)),
                            new Unfinished(rs.getLong(2), rs.getTimestamp(3).toInstant()));
                }
            }
        }
        return result;
    }

    /**
     * FAILED and DEAD entries of one consumer (all when null) grouped by cause,
     * so that a hundred messages failing for one reason make one line with a count, not
     * a hundred lines; the largest first, at most {@code limit}. A group is named by the MD5 of its cause (a name
     * for a URL, not a secret).
     */
    public List<FailureGroup> failureGroups(String consumer, int limit) {
        return failureGroups(consumer, null, limit);
    }

    /** One failure group of a consumer, if it still has entries. */
    public Optional<FailureGroup> failureGroup(String consumer, String groupId) {
        return failureGroups(consumer, groupId, 1).stream().findFirst();
    }

    /** The entries of a failure group, the oldest first, at most {@code limit}. */
    public List<FailureMember> failureMembers(String consumer, String groupId, int limit) {
        List<Object[]> rows = QuarkusTransaction.requiringNew().call(() -> repository.getEntityManager().createNativeQuery(
                "select message_id, status from (" + FAILURES + " and consumer_name = ?1) f where md5(cause) = ?2"
                        + " order by received_at, message_id limit ?3", Object[].class)
                .setParameter(1, consumer).setParameter(2, groupId).setParameter(3, limit).getResultList());
        return rows.stream().map(row -> new FailureMember((String) row[0], (String) row[1])).toList();
    }

    /** Streams with parked events (of one consumer, or of all when null), the longest-waiting first. */
    public List<ParkedStream> parkedStreams(String consumer, int limit) {
        return parkedStreams(consumer, null, limit);
    }

    /** One stream's parked events, if it has any. */
    public Optional<ParkedStream> parkedStream(String consumer, String aggregateId) {
        return parkedStreams(consumer, aggregateId, 1).stream().findFirst();
    }

    /**
     * Streams that have parked events, the longest-waiting first, at most {@code limit}: each with its last
     * consumed sequence, its parked sequences (ascending) and when the oldest of them was received. Of one
     * consumer or all (null), of one aggregate or all (null). One pass over the parked rows (a partial index).
     */
    private List<ParkedStream> parkedStreams(String consumer, String aggregateId, int limit) {
        return QuarkusTransaction.requiringNew().call(() -> repository.getEntityManager().unwrap(Session.class)
                .doReturningWork(connection -> {
                    try (PreparedStatement ps = connection.prepareStatement("""
                            select m.consumer_name, m.aggregate_id, coalesce(max(s.last_sequence), 0),
                                array_agg(m.sequence_number order by m.sequence_number), min(m.received_at)
                            from inbox_messages m
                            left join stream_state s on s.consumer_name = m.consumer_name
                                and s.aggregate_id = m.aggregate_id
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
                        List<ParkedStream> streams = new ArrayList<>();
                        try (ResultSet rs = ps.executeQuery()) {
                            while (rs.next()) {
                                Long[] sequences = (Long[]) rs.getArray(4).getArray();
                                streams.add(new ParkedStream(rs.getString(1), rs.getString(2), rs.getLong(3),
                                        List.of(sequences), rs.getTimestamp(5).toInstant()));
                            }
                        }
                        return streams;
                    }
                }));
    }

    private List<FailureGroup> failureGroups(String consumer, String groupId, int limit) {
        List<Object[]> rows = QuarkusTransaction.requiringNew().call(() -> repository.getEntityManager().createNativeQuery(
                "select consumer_name, md5(cause), cause, count(*) filter (where status = 'FAILED'),"
                        + " count(*) filter (where status = 'DEAD'), min(received_at), max(last_at),"
                        + " (array_agg(message_id order by received_at desc))[1:3]"
                        + " from (" + FAILURES + " and (cast(?1 as text) is null or consumer_name = ?1)) f"
                        + " where cast(?2 as text) is null or md5(cause) = ?2"
                        + " group by consumer_name, cause order by count(*) desc, max(last_at) desc limit ?3",
                Object[].class).setParameter(1, consumer).setParameter(2, groupId).setParameter(3, limit).getResultList());
        List<FailureGroup> groups = new ArrayList<>();
        for (Object[] row : rows) {
            groups.add(new FailureGroup((String) row[0], (String) row[1], (String) row[2], ((Number) row[3]).longValue(),
                    ((Number) row[4]).longValue(), Columns.instant(row[5]), Columns.instant(row[6]),
                    List.of((String[]) row[7])));
        }
        return groups;
    }
}
