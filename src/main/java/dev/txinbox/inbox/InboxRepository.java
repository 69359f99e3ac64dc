package dev.txinbox.inbox;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.hibernate.Session;

import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;

/**
 * Data access for {@code inbox_messages}. The claim is here and nowhere else.
 * Every method must run inside the caller's JTA transaction.
 */
@ApplicationScoped
public class InboxRepository implements PanacheRepositoryBase<InboxMessage, Long> {

    /**
     * The claim: one statement, no select-then-insert. The unique (consumer_name, message_id) index
     * makes a second transaction with the same id wait for the first; once that commits, the second
     * finds the row taken and gets nothing back (a duplicate). A FAILED or DEAD row never took effect,
     * so a redelivery or re-send takes it over. The provisional status is overwritten before commit
     * whenever the outcome is not PROCESSED; nobody else can see it earlier.
     */
    private static final String CLAIM = """
            insert into inbox_messages as m (consumer_name, message_id, status, event_type, aggregate_id,
                sequence_number, payload_hash, body, attempt_count, received_at, processed_at,
                source_queue, source_message_id, source_group_id, source_sent_at, receive_count)
            values (?, ?, ?, ?, ?, ?, ?, ?, 1, now(), now(), ?, ?, ?, ?, ?)
            on conflict (consumer_name, message_id) do update set
                status = excluded.status, event_type = excluded.event_type, aggregate_id = excluded.aggregate_id,
                sequence_number = excluded.sequence_number, payload_hash = excluded.payload_hash,
                body = excluded.body, attempt_count = m.attempt_count + 1, error_text = null,
                processed_at = now(), source_queue = excluded.source_queue,
                source_message_id = excluded.source_message_id, source_group_id = excluded.source_group_id,
                source_sent_at = excluded.source_sent_at, receive_count = excluded.receive_count
            where m.status in ('FAILED', 'DEAD')
            returning id
            """;

    /** Claims {@code event} for {@code consumer}; empty when the id is already taken by a live row. */
    public Optional<Long> claim(IncomingMessage message, InboxEvent event) {
        return claim(message, event.eventId(), InboxStatus.PROCESSED, event.type(), event.aggregateId(),
                event.sequence(), event.payloadHash(), event.body());
    }

    /**
     * Records a message that could not be parsed or validated, as DEAD with its reason, unless its id
     * already belongs to a live row (which stays untouched). Returns whether a row was written.
     */
    public boolean recordDead(IncomingMessage message, String recordId, String reason) {
        Optional<Long> id = claim(message, recordId, InboxStatus.DEAD, null, null, null,
                EventParser.rawHash(message.body()),
                message.body() == null ? "" : message.body());
        id.ifPresent(rowId -> finish(rowId, InboxStatus.DEAD, reason));
        return id.isPresent();
    }

    private Optional<Long> claim(IncomingMessage message, String messageId, InboxStatus status, String type,
            String aggregateId, Long sequence, String hash, String body) {
        MessageSource source = message.source();
        return session().doReturningWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement(CLAIM)) {
                ps.setString(1, message.consumer());
                ps.setString(2, messageId);
                ps.setString(3, status.name());
                ps.setString(4, type);
                ps.setString(5, aggregateId);
                if (sequence == null) {
                    ps.setNull(6, Types.BIGINT);
                } else {
                    ps.setLong(6, sequence);
                }
                ps.setString(7, hash);
                ps.setString(8, body);
                ps.setString(9, source.queue());
                ps.setString(10, source.messageId());
                ps.setString(11, source.groupId());
                ps.setTimestamp(12, source.sentAt() == null ? null : Timestamp.from(source.sentAt()));
                if (source.receiveCount() == null) {
                    ps.setNull(13, Types.INTEGER);
                } else {
                    ps.setInt(13, source.receiveCount());
                }
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(rs.getLong(1)) : Optional.empty();
                }
            }
        });
    }

    /** Sets the final status of a claimed row; PARKED rows are not finished yet, so get no processed_at. */
    public void finish(long id, InboxStatus status, String errorText) {
        session().doWork(connection -> {
            try (PreparedStatement ps = connection.prepareStatement(
                    "update inbox_messages set status = ?, error_text = ?, processed_at = "
                            + (status == InboxStatus.PARKED ? "null" : "now()") + " where id = ?")) {
                ps.setString(1, status.name());
                ps.setString(2, errorText);
                ps.setLong(3, id);
                ps.executeUpdate();
            }
        });
    }

    public Optional<InboxMessage> findEntry(String consumer, String messageId) {
        return find("consumerName = ?1 and messageId = ?2", consumer, messageId).firstResultOptional();
    }

    /** The parked event at exactly {@code sequence} of a stream; the earliest received if several. */
    public Optional<InboxMessage> findParked(String consumer, String aggregateId, long sequence) {
        return find("consumerName = ?1 and aggregateId = ?2 and sequenceNumber = ?3 and status = ?4 order by id",
                consumer, aggregateId, sequence, InboxStatus.PARKED).firstResultOptional();
    }

    /**
     * Parked events the stream has moved past (another event with the same sequence was applied)
     * can never apply: they become STALE instead of waiting forever.
     */
    public int staleParkedUpTo(String consumer, String aggregateId, long lastSequence) {
        return update("status = ?1, processedAt = ?2, errorText = ?3 where consumerName = ?4 and aggregateId = ?5"
                + " and status = ?6 and sequenceNumber <= ?7",
                InboxStatus.STALE, Instant.now(), "another event with this sequence was applied first",
                consumer, aggregateId, InboxStatus.PARKED, lastSequence);
    }

    private Session session() {
        return getEntityManager().unwrap(Session.class);
    }
}
