package dev.txinbox.inbox;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import org.hibernate.Session;

import dev.txinbox.ordering.ParkedRun;
import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;

/**
 * The hot path's data access to {@code inbox_messages}: the claims, the look-up of ids seen before, the rows'
 * states, and the parked rows a drain or a gap release reads; and the round trip that tells an outage from its end,
 * on the same connection the hot path takes. Every method must run inside the caller's JTA transaction. The inbox's
 * other statements are apart, by concern: the failure path's writes in {@link InboxFailures}, the retention's
 * deletes in {@link InboxRetention}, what operators read in {@link InboxReadModel}.
 * <p>
 * A Panache repository, because the inbox is an entity the admin API and handlers read through Hibernate;
 * but every statement here is JDBC on the transaction's own connection ({@code doWork}), one style for all of
 * them: each is a single statement PostgreSQL must see as written (upserts with {@code ON CONFLICT … RETURNING},
 * arrays through {@code unnest}), which HQL cannot say, and none needs the persistence context.
 */
@ApplicationScoped
public class InboxRepository implements PanacheRepositoryBase<InboxMessage, Long> {

    /** The single-row upsert, for the claim of an id seen before and for the failure path ({@link InboxFailures}). */
    static final String INSERT = """
            insert into inbox_messages as m (consumer_name, message_id, status, event_type, aggregate_id,
                sequence_number, payload_hash, body, source_queue, source_message_id, source_group_id,
                source_sent_at, receive_count, attempt_count, error_text, received_at, processed_at, traceparent)
            values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, now(), %s, ?)
            on conflict (consumer_name, message_id) do update set
                status = excluded.status, event_type = excluded.event_type, aggregate_id = excluded.aggregate_id,
                sequence_number = excluded.sequence_number, payload_hash = excluded.payload_hash,
                body = excluded.body, source_queue = excluded.source_queue,
                source_message_id = excluded.source_message_id, source_group_id = excluded.source_group_id,
                source_sent_at = excluded.source_sent_at, receive_count = excluded.receive_count,
                error_text = excluded.error_text, processed_at = excluded.processed_at, next_attempt_at = null,
                traceparent = coalesce(excluded.traceparent, m.traceparent),
                attempt_count = m.attempt_count + %s
            where m.status in ('FAILED', 'DEAD')
            returning id, attempt_count
            """;

    /**
     * The claim: one statement, no select-then-insert. The unique (consumer_name, message_id) index
     * makes a second transaction with the same id wait for the first; once that commits, the second
     * finds the row taken and gets nothing back (a duplicate). A FAILED or DEAD row never took effect,
     * so a redelivery or re-send takes it over, counting one more attempt. The provisional status is
     * overwritten before commit whenever the outcome is not PROCESSED; nobody else can see it earlier.
     */
    private static final String CLAIM = INSERT.formatted("now()", "1");

    /**
     * The batch claim: every new event id of a batch in one statement, in message-id order (so that two
     * batches claiming overlapping ids take the unique index's locks in the same order and never deadlock).
     * DO NOTHING on conflict: an id that exists is a duplicate, a conflict, or a FAILED/DEAD row to take
     * over, and {@link #claim} settles that per message, in the batch's transaction: a pass that fails rolls the
     * takeover back with everything else it did.
     */
    private static final String CLAIM_NEW = """
            insert into inbox_messages (consumer_name, message_id, status, event_type, aggregate_id,
                sequence_number, payload_hash, body, source_queue, source_message_id, source_group_id,
                source_sent_at, receive_count, attempt_count, received_at, processed_at, traceparent)
            select ?, t.message_id, 'PROCESSED', t.event_type, t.aggregate_id, t.sequence_number, t.payload_hash,
                t.body, t.source_queue, t.source_message_id, t.source_group_id,
                to_timestamp(t.sent_at_ms / 1000.0), t.receive_count, 1, now(), now(), t.traceparent
            from unnest(?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[],
                ?::text[], ?::bigint[], ?::int[], ?::text[])
                as t(message_id, event_type, aggregate_id, sequence_number, payload_hash, body, source_queue,
                    source_message_id, source_group_id, sent_at_ms, receive_count, traceparent)
            order by t.message_id
            on conflict (consumer_name, message_id) do nothing
            returning id, message_id
            """;

    /**
     * A pass's final states: status, text, whether the entry is finished (processed_at) and attempts to add.
     * Every row is the pass's own claim or a parked row of a stream it holds locked, so no other transaction
     * waits on them; they come in id order all the same.
     */
    private static final String WRITE = """
            update inbox_messages m set status = v.status, error_text = v.text,
                processed_at = case when v.finished then now() end, attempt_count = m.attempt_count + v.attempts
            from unnest(?::bigint[], ?::text[], ?::text[], ?::boolean[], ?::int[])
                as v(id, status, text, finished, attempts)
            where m.id = v.id
            """;

    /** A claimed row: its id, and which attempt at the event this is (1 unless earlier ones failed). */
    public record Claim(long id, int attempt) {
    }

    /** A message of a batch, with its parsed event. */
    public record Claimable(IncomingMessage message, InboxEvent event) {
    }

    /**
     * Claims the ids of a batch that were never seen, in one statement: event id to its claim (attempt 1).
     * The ids must be distinct. Ids that exist are left out of the answer, for {@link #claim}.
     */
    public Map<String, Claim> claimNew(String consumer, List<Claimable> batch) {
        Map<String, Claim> claimed = new HashMap<>();
        if (batch.isEmpty()) {
            return claimed;
        }
        int n = batch.size();
        String[] ids = new String[n], types = new String[n], aggregates = new String[n], hashes = new String[n],
                bodies = new String[n], queues = new String[n], sourceIds = new String[n], groups = new String[n],
                traceparents = new String[n];
        Long[] sequences = new Long[n], sentAt = new Long[n];
        Integer[] receiveCounts = new Integer[n];
        for (int i = 0; i < n; i++) {
            InboxEvent event = batch.get(i).event();
            MessageSource source = batch.get(i).message().source();
            ids[i] = event.eventId();
            types[i] = event.type();
            aggregates[i] = event.aggregateId();
            sequences[i] = event.sequence();
            hashes[i] = event.payloadHash();
            bodies[i] = batch.get(i).message().body();
            queues[i] = source.queue();
            sourceIds[i] = source.messageId();
            groups[i] = source.groupId();
            sentAt[i] = source.sentAt() == null ? null : source.sentAt().toEpochMilli();
            receiveCounts[i] = source.receiveCount();
            traceparents[i] = source.traceparent();
        }
        session().doWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement(CLAIM_NEW)) {
                ps.setString(1, consumer);
                ps.setArray(2, connection.createArrayOf("text", ids));
                ps.setArray(3, connection.createArrayOf("text", types));
                ps.setArray(4, connection.createArrayOf("text", aggregates));
                ps.setArray(5, connection.createArrayOf("bigint", sequences));
                ps.setArray(6, connection.createArrayOf("text", hashes));
                ps.setArray(7, connection.createArrayOf("text", bodies));
                ps.setArray(8, connection.createArrayOf("text", queues));
                ps.setArray(9, connection.createArrayOf("text", sourceIds));
                ps.setArray(10, connection.createArrayOf("text", groups));
                ps.setArray(11, connection.createArrayOf("bigint", sentAt));
                ps.setArray(12, connection.createArrayOf("int4", receiveCounts));
                ps.setArray(13, connection.createArrayOf("text", traceparents));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        claimed.put(rs.getString(2), new Claim(rs.getLong(1), 1));
                    }
                }
            }
        });
        return claimed;
    }

    /**
     * Gives back claims of a batch whose messages failed or were held back: the rows never took effect,
     * and their messages return through the queue. Only for rows {@link #claimNew} created in this transaction.
     */
    public void unclaim(List<Long> ids) {
        if (ids.isEmpty()) {
            return;
        }
        session().doWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement("delete from inbox_messages where id = any(?)")) {
                ps.setArray(1, connection.createArrayOf("int8", ids.toArray()));
                ps.executeUpdate();
            }
        });
    }

    /** Claims {@code event}; empty when its id already belongs to a live row (not FAILED or DEAD). */
    public Optional<Claim> claim(IncomingMessage message, InboxEvent event) {
        return upsert(CLAIM, message, event.eventId(), InboxStatus.PROCESSED, event, null)
                .map(r -> new Claim(r[0], (int) r[1]));
    }

    Optional<long[]> upsert(String sql, IncomingMessage message, String messageId, InboxStatus status,
            InboxEvent event, String error) {
        MessageSource source = message.source();
        return session().doReturningWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement(sql)) {
                ps.setString(1, message.consumer());
                ps.setString(2, messageId);
                ps.setString(3, status.name());
                ps.setString(4, event == null ? null : event.type());
                ps.setString(5, event == null ? null : event.aggregateId());
                if (event == null || event.sequence() == null) {
                    ps.setNull(6, Types.BIGINT);
                } else {
                    ps.setLong(6, event.sequence());
                }
                ps.setString(7, event == null ? EventParser.rawHash(message.body()) : event.payloadHash());
                ps.setString(8, storable(message.body() == null ? "" : message.body()));
                ps.setString(9, source.queue());
                ps.setString(10, source.messageId());
                ps.setString(11, source.groupId());
                ps.setTimestamp(12, source.sentAt() == null ? null : Timestamp.from(source.sentAt()));
                setInteger(ps, 13, source.receiveCount());
                ps.setString(14, storable(error));
                ps.setString(15, source.traceparent());
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(new long[] { rs.getLong(1), rs.getLong(2) }) : Optional.empty();
                }
            }
        });
    }

    /** Gives rows their final (or parked) states, in one statement for a whole pass. */
    void write(Collection<RowStates.State> states) {
        if (states.isEmpty()) {
            return;
        }
        int n = states.size();
        Long[] ids = new Long[n];
        String[] statuses = new String[n], texts = new String[n];
        Boolean[] finished = new Boolean[n];
        Integer[] attempts = new Integer[n];
        int i = 0;
        for (RowStates.State state : states) {
            ids[i] = state.id();
            statuses[i] = state.status().name();
            texts[i] = storable(state.text());
            finished[i] = state.finished();
            attempts[i++] = state.addAttempt() ? 1 : 0;
        }
        session().doWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement(WRITE)) {
                ps.setArray(1, connection.createArrayOf("int8", ids));
                ps.setArray(2, connection.createArrayOf("text", statuses));
                ps.setArray(3, connection.createArrayOf("text", texts));
                ps.setArray(4, connection.createArrayOf("bool", finished));
                ps.setArray(5, connection.createArrayOf("int4", attempts));
                ps.executeUpdate();
            }
        });
    }

    /** What a duplicate is compared with: the recorded payload hash and status of an event id. */
    public record Recorded(String payloadHash, String status) {

        /** FAILED and DEAD rows never took effect: a redelivery or re-send claims them again ({@link #claim}). */
        boolean claimable() {
            return InboxStatus.FAILED.name().equals(status) || InboxStatus.DEAD.name().equals(status);
        }
    }

    /** The recorded hash and status of each of these event ids that has a row: one indexed look-up for a batch. */
    public Map<String, Recorded> recorded(String consumer, Collection<String> messageIds) {
        Map<String, Recorded> found = new HashMap<>();
        if (messageIds.isEmpty()) {
            return found;
        }
        session().doWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement("select message_id, payload_hash, status"
                    + " from inbox_messages where consumer_name = ? and message_id = any(?)")) {
                ps.setString(1, consumer);
                ps.setArray(2, connection.createArrayOf("text", messageIds.toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        found.put(rs.getString(1), new Recorded(rs.getString(2), rs.getString(3)));
                    }
                }
            }
        });
        return found;
    }

    /**
     * Which of these streams have parked events: one indexed look-up for a whole batch. A statement of its own,
     * after the streams are locked: one taken with the lock would read the parked rows as they were before the
     * lock was granted, and miss an event parked by the transaction the lock waited for.
     */
    public Set<String> streamsWithParked(String consumer, Collection<String> aggregateIds) {
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

    /** The parked events of a locked stream, lowest sequence first (the earliest received first among equals). */
    public List<ParkedRun.Parked> parked(String consumer, String aggregateId) {
        return session().doReturningWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement("select id, message_id, sequence_number, body,"
                    + " traceparent from inbox_messages"
                    + " where consumer_name = ? and aggregate_id = ? and status = 'PARKED'"
                    + " order by sequence_number, id")) {
                ps.setString(1, consumer);
                ps.setString(2, aggregateId);
                List<ParkedRun.Parked> parked = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        parked.add(new ParkedRun.Parked(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getString(4),
                                rs.getString(5)));
                    }
                }
                return parked;
            }
        });
    }

    /** The lowest parked sequence of a locked stream above {@code last}, if any: where a gap release resumes. */
    public Optional<Long> lowestParkedAfter(String consumer, String aggregateId, long last) {
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

    /** A round trip to the database, for telling an outage from its end. */
    public void ping() {
        session().doWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement("select 1")) {
                ps.executeQuery().close();
            }
        });
    }

    /**
     * PostgreSQL refuses NUL in text (SQLState 22021). A body or an error that holds one is not valid
     * JSON or quotes such a body: it is on its way to the dead-letter queue, which keeps the original.
     * The record keeps it readable, with U+FFFD in place of each NUL, rather than failing to be written.
     */
    static String storable(String text) {
        return text == null || text.indexOf('\u0000') < 0 ? text : text.replace('\u0000', '\uFFFD');
    }

    static void setInteger(PreparedStatement ps, int index, Integer value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.INTEGER);
        } else {
            ps.setInt(index, value);
        }
    }

    Session session() {
        return getEntityManager().unwrap(Session.class);
    }
}
