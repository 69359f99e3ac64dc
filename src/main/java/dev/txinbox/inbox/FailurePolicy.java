package dev.txinbox.inbox;

import java.net.ConnectException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import jakarta.enterprise.context.ApplicationScoped;

import dev.txinbox.config.TxinboxConfig;

/**
 * What a failure means, in one place:
 * <ul>
 * <li><b>permanent</b>: {@link InvalidMessageException} anywhere in the cause chain, or PostgreSQL
 * refusing the message's own data: SQLState class 22 (data exception: a NUL in text, a value out of
 * range), a NOT NULL or CHECK violation (23502, 23514), or a value past a limit of PostgreSQL's own
 * (54000: a key too long for its index). The message can never succeed: dead-letter it
 * at once. Unique and foreign-key violations (23505, 23503) stay transient: they depend on what other
 * transactions did, and a retry sees their outcome.</li>
 * <li><b>outage</b>: the database is unreachable (connection refused or lost, no connection to be had).
 * It says nothing about the message, so no attempt is counted; consumption should pause until the
 * database answers again instead of cycling messages.</li>
 * <li><b>contention</b>: a deadlock or serialization failure ({@link #isContention}). Nobody's fault:
 * the batch runs again at once, counting nothing.</li>
 * <li><b>transient</b>: everything else (a timeout, a bug, a downstream refusal). Rolled back, counted as
 * an attempt, retried after {@link #retryDelay}; after {@link TxinboxConfig.Retry#maxAttempts()} attempts the
 * message is dead-lettered.</li>
 * </ul>
 */
@ApplicationScoped
public class FailurePolicy {

    /** The four kinds of failure, as {@link #classify} tells them apart. */
    public enum Kind {
        PERMANENT,
        OUTAGE,
        CONTENTION,
        TRANSIENT
    }

    static final int MAX_ERROR_LENGTH = 2000;
    /** How long a message waits when the database is down: it is not the message's fault. */
    public static final Duration OUTAGE_DELAY = Duration.ofSeconds(5);

    /** The kind of {@code failure}: an outage wins over everything (no attempt may count while the database is away). */
    public Kind classify(Throwable failure) {
        if (isOutage(failure)) {
            return Kind.OUTAGE;
        }
        if (isContention(failure)) {
            return Kind.CONTENTION;
        }
        return isPermanent(failure) ? Kind.PERMANENT : Kind.TRANSIENT;
    }

    /**
     * Whether the database or the persistence layer raised {@code failure}. Inside a handler it may come from
     * an earlier message's writes, which Hibernate flushed before the handler's query: it does not name its
     * message for sure.
     */
    public boolean isDatabaseError(Throwable failure) {
        for (Throwable t = failure; t != null; t = next(t)) {
            if (t instanceof SQLException || t instanceof jakarta.persistence.PersistenceException
                    || t instanceof org.hibernate.HibernateException) {
                return true;
            }
        }
        return false;
    }

    public boolean isPermanent(Throwable failure) {
        for (Throwable t = failure; t != null; t = next(t)) {
            if (t instanceof InvalidMessageException || refusedData(t) != null) {
                return true;
            }
        }
        return false;
    }

    /** The SQLState when {@code t} is PostgreSQL refusing a value the message brought; null otherwise. */
    private static String refusedData(Throwable t) {
        if (t instanceof SQLException sql && sql.getSQLState() != null) {
            String state = sql.getSQLState();
            if (state.startsWith("22") || state.equals("23502") || state.equals("23514") || state.equals("54000")) {
                return state;
            }
        }
        return null;
    }

    public boolean isOutage(Throwable failure) {
        for (Throwable t = failure; t != null; t = next(t)) {
            if (t instanceof ConnectException) {
                return true;
            }
            if (t instanceof SQLException sql) {
                String state = sql.getSQLState();
                // 08: connection exception; 57P01-03: server shutting down or starting; 53300: too many connections
                if (state != null && (state.startsWith("08") || state.startsWith("57P") || state.equals("53300"))) {
                    return true;
                }
                String message = String.valueOf(sql.getMessage());
                if (message.contains("Acquisition timeout") || message.contains("This connection has been closed")) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * A deadlock or serialization failure: two transactions met on the same rows. Neither message is at
     * fault, so no attempt is counted; the batch simply runs again. Batches take their locks in a fixed
     * order (claims by event id, streams by aggregate), so this should not happen; a handler that locks
     * rows of its own in another order can still cause it.
     */
    public boolean isContention(Throwable failure) {
        for (Throwable t = failure; t != null; t = next(t)) {
            if (t instanceof SQLException sql && ("40001".equals(sql.getSQLState()) || "40P01".equals(sql.getSQLState()))) {
                return true;
            }
        }
        return false;
    }

    public boolean exhausted(int attempts, TxinboxConfig.Retry settings) {
        return attempts >= settings.maxAttempts();
    }

    /**
     * The delay after failed attempt {@code attempt}: base·2^(attempt-1), capped, with "equal jitter"
     * (half fixed, half random) so that a burst of failures does not come back as a burst. Whole
     * seconds, at least one: SQS visibility has one-second resolution and zero would be a hot loop.
     */
    public Duration retryDelay(int attempt, TxinboxConfig.Retry settings) {
        long baseMillis = settings.base().toMillis();
        long capMillis = settings.cap().toMillis();
        int exponent = Math.min(Math.max(attempt, 1) - 1, 30);
        long delay = Math.min(capMillis, baseMillis * (1L << exponent));
        long jittered = delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1);
        return Duration.ofSeconds(Math.max(1, (jittered + 999) / 1000));
    }

    /** The error as an operator reads it: the root cause's class and message, bounded. */
    public String describe(Throwable failure) {
        Throwable root = failure;
        String refused = null;
        for (Throwable t = failure; t != null; t = next(t)) {
            root = t;
            refused = refused != null ? refused : refusedData(t);
        }
        String text = root == failure ? failure.toString() : failure.getClass().getName() + ": " + root;
        if (refused != null) {
            text = "the database refused the message's data (SQLState " + refused + "): " + text;
        }
        return text.length() > MAX_ERROR_LENGTH ? text.substring(0, MAX_ERROR_LENGTH) + "…" : text;
    }

    private static Throwable next(Throwable t) {
        Throwable cause = t.getCause();
        return cause == t ? null : cause;
    }
}
