package dev.txinbox.inbox;

import static dev.txinbox.inbox.InboxRepository.INSERT;
import static dev.txinbox.inbox.InboxRepository.setInteger;
import static dev.txinbox.inbox.InboxRepository.storable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.IntFunction;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * The failure path's writes: a failed attempt (its FAILED row and its line in {@code inbox_attempts}) and a dead
 * letter (its DEAD row). Each runs in a transaction of its own, after the batch's, so apart from the hot path
 * ({@link InboxRepository}); both are the claim's single-row upsert with other values, so they go through it.
 */
@ApplicationScoped
public class InboxFailures {

    /** A failed attempt, recorded in a transaction of its own after the business one rolled back. */
    private static final String FAIL = INSERT.formatted("null", "1");
    /** A dead letter: the message's copy is safe in the dead-letter queue. No attempt is added. */
    private static final String DEAD = INSERT.formatted("now()", "0");

    private final InboxRepository repository;

    public InboxFailures(InboxRepository repository) {
        this.repository = repository;
    }

    /**
     * Records a failed attempt as FAILED with its error, the time of the next attempt (asked of
     * {@code nextAttemptIn} with the attempt number) and a line of history. Returns the attempts counted so far, or empty when the id meanwhile belongs to a live
     * row (another delivery of the same event succeeded: this one is then a duplicate).
     */
    public Optional<Integer> recordFailure(IncomingMessage message, InboxEvent event, String error,
            IntFunction<Duration> nextAttemptIn) {
        Optional<long[]> row = repository.upsert(FAIL, message, event.eventId(), InboxStatus.FAILED, event, error);
        row.ifPresent(r -> repository.session().doWork(connection -> {
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
        return repository.upsert(DEAD, message, recordId, InboxStatus.DEAD, event, reason).isPresent();
    }

    private static void update(Connection connection, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            ps.executeUpdate();
        }
    }
}
