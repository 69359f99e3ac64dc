package dev.txinbox.outbox;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;

import org.jboss.logging.Logger;

import dev.txinbox.outbox.OutboxPublisher.PublishException;
import dev.txinbox.outbox.OutboxRelay.Publishing;
import dev.txinbox.outbox.OutboxRelay.State;

/**
 * The relay's state as readiness and the operators read it, and what a failure of the broker or the database does
 * to it: each class of failure has its own state and log line (once, when it begins), counts no attempt against any
 * event, and backs the relay off for longer each time in a row.
 */
final class RelayHealth {

    // The relay's category: what operators filter and alert on.
    private static final Logger LOG = Logger.getLogger(OutboxRelay.class);

    private final String relay;
    private final Duration retryCap;
    private final OutboxMetrics metrics;
    private volatile State state = new State(Publishing.STARTING, null, Instant.now(), Set.of());
    private int outageFailures;
    private Instant backoffUntil = Instant.EPOCH;

    RelayHealth(String relay, Duration retryCap, OutboxMetrics metrics) {
        this.relay = relay;
        this.retryCap = retryCap;
        this.metrics = metrics;
    }

    State state() {
        return state;
    }

    boolean ok() {
        return state.publishing() == Publishing.OK;
    }

    /** Until when the broker's failure holds the sends back. */
    Instant backoffUntil() {
        return backoffUntil;
    }

    void owned(Set<Integer> owned) {
        state = new State(state.publishing(), state.error(), state.since(), Set.copyOf(owned));
    }

    /** A session opened: the relay publishes, unless the broker is still known to fail. */
    void connected() {
        if (state.publishing() == Publishing.DATABASE_UNAVAILABLE || state.publishing() == Publishing.STARTING
                || state.publishing() == Publishing.STOPPED) {
            publishing(Publishing.OK, null);
        }
    }

    /** The broker took a call: an outage or a configuration fault is over. */
    void answered() {
        if (state.publishing() != Publishing.OK) {
            LOG.infof("outbox relay %s: the queue takes messages again", relay);
            publishing(Publishing.OK, null);
        }
        outageFailures = 0;
    }

    /** A call failed as a whole, for no event's fault; returns how long to wait. */
    Duration brokerFailed(PublishException e) {
        Publishing publishing = publishingOf(e.failure());
        metrics.failure(publishing == Publishing.CONFIGURATION ? OutboxMetrics.CONFIGURATION
                : OutboxMetrics.UNAVAILABLE, 1);
        if (state.publishing() != publishing) {
            LOG.warnf("outbox relay %s: %s; backing off, no event counts an attempt: %s", relay, switch (publishing) {
                case CONFIGURATION -> "the queue cannot be used";
                case CREDENTIALS -> "no usable AWS credentials";
                default -> "the broker is unavailable";
            }, e.getMessage());
        }
        publishing(publishing, e.getMessage());
        Duration backoff = outageBackoff();
        backoffUntil = Instant.now().plus(backoff);
        return backoff;
    }

    /**
     * The session failed: says which partitions it released (once, when the outage begins), ends it with
     * {@code close}, and returns how long to wait before opening another.
     */
    Duration lostDatabase(SQLException e, Set<Integer> released, Runnable close) {
        if (state.publishing() != Publishing.DATABASE_UNAVAILABLE) {
            LOG.warnf("outbox relay %s: database connection lost, partitions %s released: %s", relay, released,
                    e.getMessage());
        }
        close.run();
        publishing(Publishing.DATABASE_UNAVAILABLE, e.getMessage());
        return outageBackoff();
    }

    void stopped() {
        state = new State(Publishing.STOPPED, null, Instant.now(), Set.of());
    }

    /** The state a whole call's failure puts the relay in. */
    static Publishing publishingOf(OutboxPublisher.Failure failure) {
        return switch (failure) {
            case CONFIGURATION -> Publishing.CONFIGURATION;
            case CREDENTIALS -> Publishing.CREDENTIALS;
            default -> Publishing.UNAVAILABLE;
        };
    }

    private Duration outageBackoff() {
        return Backoff.outage(++outageFailures, retryCap);
    }

    private void publishing(Publishing publishing, String error) {
        Instant since = state.publishing() == publishing ? state.since() : Instant.now();
        state = new State(publishing, error, since, state.owned());
    }
}
