package dev.txinbox.inbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.IntFunction;

import jakarta.enterprise.context.ApplicationScoped;

import org.hibernate.Session;

import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;

/**
 * Data access for {@code inbox_messages}. The claim is here and nowhere else.
 * Every method must run inside the caller's JTA transaction.
 */
@ApplicationScoped
public class InboxRepository implements PanacheRepositoryBase<InboxMessage, Long> {

    private static final String INSERT = """
            insert into inbox_messages as m (consumer_name, message_id, status, event_type, aggregate_id,
                sequence_number, payload_hash, body, source_queue, source_message_id, source_group_id,
                source_sent_at, receive_count, attempt_count, error_text, received_at, processed_at)
            values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, now(), %s)
            on conflict (consumer_name, message_id) do update set
                status = excluded.status, event_type = excluded.event_type, aggregate_id = excluded.aggregate_id,
                sequence_number = excluded.sequence_number, payload_hash = excluded.payload_hash,
                body = excluded.body, source_queue = excluded.source_queue,
                source_message_id = excluded.source_message_id, source_group_id = excluded.source_group_id,
                source_sent_at = excluded.source_sent_at, receive_count = excluded.receive_count,
                error_text = excluded.error_text, processed_at = excluded.processed_at, next_attempt_at = null,
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
    /** A failed attempt, recorded in a transaction of its own after the business one rolled back. */
    private static final String FAIL = INSERT.formatted("null", "1");
    /** A dead letter: the message's copy is safe in the dead-letter queue. No attempt is added. */
    private static final String DEAD = INSERT.formatted("now()", "0");

    /** A claimed row: its id, and which attempt at the event this is (1 unless earlier ones failed). */
    public record Claim(long id, int attempt) {
    }

    /** Claims {@code event}; empty when its id already belongs to a live row (not FAILED or DEAD). */
    public Optional<Claim> claim(IncomingMessage message, InboxEvent event) {
        return upsert(CLAIM, message, event.eventId(), InboxStatus.PROCESSED, event, null)
                .map(r -> new Claim(r[0], (int) r[1]));
    }

    /**
     * Records a failed attempt as FAILED with its error, the time of the next attempt (asked of
     * {@code nextAttemptIn} with the attempt number) and a line of history. Returns the attempts counted so far, or empty when the id meanwhile belongs to a live
     * row (another delivery of the same event succeeded: this one is then a duplicate).
     */
    public Optional<Integer> recordFailure(IncomingMessage message, InboxEvent event, String error,
            IntFunction<Duration> nextAttemptIn) {
        Optional<long[]> row = upsert(FAIL, message, event.eventId(), InboxStatus.FAILED, event, error);
        row.ifPresent(r -> session().doWork(connection -> {
            update(connection, "update inbox_messages set next_attempt_at = now() + ? * interval '1 millisecond'"
                    + " where id = ?", nextAttemptIn.apply((int) r[1]).toMillis(), r[0]);
            try (PreparedStatement ps = connection.prepareStatement("insert into inbox_attempts (consumer_name,"
                    + " message_id, attempt, error_text, source_message_id, receive_count) values (?, ?, ?, ?, ?, ?)")) {
                ps.setString(1, message.consumer());
                ps.setString(2, event.eventId());
                ps.setInt(3, (int) r[1]);
                ps.setString(4, storable(error));
                ps.setString(5, message.source().messageId());
                setInteger(ps, 6, message.source().receiveCount());
                ps.executeUpdate();
            }
        }));
        return row.map(r -> (int) r[1]);
    }

    /**
     * Records a dead-lettered message as DEAD with its reason, unless its id belongs to a live row
     * (a valid copy was processed), which stays untouched. {@code event} is null for a body that never
     * parsed. Returns whether a row was written.
     */
    public boolean recordDead(IncomingMessage message, String recordId, InboxEvent event, String reason) {
        return upsert(DEAD, message, recordId, InboxStatus.DEAD, event, reason).isPresent();
    }

    private Optional<long[]> upsert(String sql, IncomingMessage message, String messageId, InboxStatus status,
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
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(new long[] { rs.getLong(1), rs.getLong(2) }) : Optional.empty();
                }
            }
        });
    }

    /** Sets the final status of a claimed row; PARKED rows are not finished yet, so get no processed_at. */
    public void finish(long id, InboxStatus status, String errorText) {
        session().doWork(connection -> update(connection, "update inbox_messages set status = ?, error_text = ?,"
                + " processed_at = " + (status == InboxStatus.PARKED ? "null" : "now()") + " where id = ?",
                status.name(), storable(errorText), id));
    }

    public Optional<InboxMessage> findEntry(String consumer, String messageId) {
        return find("consumerName = ?1 and messageId = ?2", consumer, messageId).firstResultOptional();
    }

    /** A parked event, as draining a stream needs it. */
    public record Parked(long id, String messageId, long sequence, String body) {
    }

    /**
     * The parked events of a stream, lowest sequence first (the earliest received first among equal
     * sequences). One indexed look-up that usually finds nothing, made after every applied event.
     */
    public List<Parked> parked(String consumer, String aggregateId) {
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

    /** The lowest parked sequence of a stream above {@code last}, if any. */
    public Optional<Long> lowestParkedAfter(String consumer, String aggregateId, long last) {
        return Optional.ofNullable(getEntityManager().createQuery("select min(m.sequenceNumber) from InboxMessage m"
                + " where m.consumerName = ?1 and m.aggregateId = ?2 and m.status = ?3 and m.sequenceNumber > ?4",
                Long.class).setParameter(1, consumer).setParameter(2, aggregateId)
                .setParameter(3, InboxStatus.PARKED).setParameter(4, last).getSingleResult());
    }

    /** A round trip to the database, for telling an outage from its end. */
    public void ping() {
        session().doWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement("select 1")) {
                ps.executeQuery().close();
            }
        });
    }

    private static void update(Connection connection, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            ps.executeUpdate();
        }
    }

    /**
     * PostgreSQL refuses NUL in text (SQLState 22021). A body or an error that holds one is not valid
     * JSON or quotes such a body: it is on its way to the dead-letter queue, which keeps the original.
     * The record keeps it readable, with U+FFFD in place of each NUL, rather than failing to be written.
     */
    static String storable(String text) {
        return text == null || text.indexOf('\u0000') < 0 ? text : text.replace('\u0000', '\uFFFD');
    }

    private static void setInteger(PreparedStatement ps, int index, Integer value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.INTEGER);
        } else {
            ps.setInt(index, value);
        }
    }

    private Session session() {
        return getEntityManager().unwrap(Session.class);
    }
}
