package dev.txinbox.outbox;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.outbox.OutboxPublisher.PublishException;

/**
 * Publishes {@code outbox_events} to the FIFO queue, per aggregate in sequence order (docs/OUTBOX.md), on a thread of
 * its own, round after round.
 *
 * <p>A round takes this relay's fair share of the partitions ({@link PartitionOwnership}), reads a page of the due
 * heads of their pending streams, the lowest unpublished event of each aggregate ({@link OutboxStore}), writes them
 * as CONTRACT §1 messages ({@link OutboxFormat}) and sends them in {@code SendMessageBatch} calls, several in flight
 * ({@link RelaySender}): an aggregate appears at most once per round, so no call carries an event after one of the
 * same aggregate that may fail. A failure of the broker or of the database backs the whole relay off and is what
 * readiness reports ({@link RelayHealth}); an event the broker refuses makes only its own aggregate wait.
 */
public final class OutboxRelay {

    private static final Logger LOG = Logger.getLogger(OutboxRelay.class);

    /** Opens the relay's own connection (not the pool's: its session holds the partition locks). */
    @FunctionalInterface
    public interface Connector {
        Connection open() throws SQLException;
    }

    /** What the relay is doing, for readiness and the operators. */
    public record State(Publishing publishing, String error, Instant since, Set<Integer> owned) {
    }

    public enum Publishing {
        STARTING, OK, UNAVAILABLE, CREDENTIALS, CONFIGURATION, DATABASE_UNAVAILABLE, STOPPED
    }

    private final String name;
    private final TxinboxConfig.Outbox config;
    private final OutboxSignal signal;
    private final Wakeup wakeup = new Wakeup();
    private final RelayHealth health;
    private final OutboxStore store;
    private final PartitionOwnership ownership;
    private final OutboxFormat format;
    private final RelaySender sender;

    private volatile boolean running;
    private Thread thread;
    private Instant nextClaim = Instant.EPOCH;

    public OutboxRelay(String name, Connector connector, OutboxPublisher publisher, TxinboxConfig.Outbox config,
            OutboxSignal signal, OutboxMetrics metrics, ObjectMapper mapper) {
        this.name = name;
        this.config = config;
        this.signal = signal;
        this.health = new RelayHealth(name, config.relay().retryCap(), metrics);
        this.store = new OutboxStore(connector, config.deletesOnPublish());
        this.ownership = new PartitionOwnership(name, config.partitions(), health::owned);
        this.format = new OutboxFormat(mapper);
        this.sender = new RelaySender(name, publisher, config.queue(), config.relay(), store, health, metrics);
    }

    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        signal.register(wakeup, () -> health.state().owned());
        thread = new Thread(this::loop, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Stops after the call in flight, then closes the connection, which hands the partitions to the others. */
    public void stop(Duration timeout) {
        Thread running;
        synchronized (this) {
            this.running = false;
            running = thread;
            thread = null;
        }
        signal.unregister(wakeup);
        wakeup.ring();
        if (running != null) {
            try {
                running.join(timeout.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (running.isAlive()) {
                running.interrupt();
            }
        }
    }

    public State state() {
        return health.state();
    }

    /** Looks at once (an operator's retry, a test). */
    public void wake() {
        wakeup.ring();
    }

    /** The message group of an aggregate's events: {@link OutboxFormat#groupId}. */
    static String groupId(String aggregateId) {
        return OutboxFormat.groupId(aggregateId);
    }

    private void loop() {
        try {
            while (running) {
                Duration idle;
                try {
                    idle = round();
                } catch (SQLException e) {
                    idle = health.lostDatabase(e, ownership.owned(), this::closeSession);
                } catch (RuntimeException e) {
                    LOG.errorf(e, "outbox relay %s: a round failed; trying again", name);
                    idle = config.relay().pollInterval();
                }
                if (!idle.isZero() && running) {
                    wakeup.await(idle);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeSession();
            health.stopped();
        }
    }

    /** One round; returns how long to wait before the next one (zero: at once, there is more). */
    private Duration round() throws SQLException {
        if (store.open()) {
            nextClaim = Instant.EPOCH;
            health.connected();
        }
        Instant now = Instant.now();
        if (!now.isBefore(nextClaim)) {
            ownership.claim(store.connection());
            nextClaim = now.plus(config.relay().claimInterval());
        }
        Duration untilClaim = Duration.between(Instant.now(), nextClaim);
        if (now.isBefore(health.backoffUntil())) {
            return min(Duration.between(now, health.backoffUntil()), untilClaim);
        }
        boolean more = false;
        sender.newRound();
        try {
            if (!ownership.owned().isEmpty()) {
                more = publish();
            }
            if (sender.sends() == 0 && !health.ok() && !ownership.owned().isEmpty()) {
                sender.probe();
            }
        } catch (PublishException e) {
            return health.brokerFailed(e);
        }
        return more ? Duration.ZERO : min(config.relay().pollInterval(), untilClaim);
    }

    /**
     * Sends a page of the due heads of the owned partitions; true when there may be more to send at once. What
     * exceeds the broker's size limit on its own is refused before any call, since no call could carry it.
     */
    private boolean publish() throws SQLException {
        OutboxStore.Page page = store.nextPage(ownership.owned());
        List<String> bodies = page.heads().stream().map(format::body).toList();
        int maxBytes = config.relay().maxMessageBytes();
        Call.Plan plan = Call.plan(page.heads(), bodies, maxBytes);
        for (Call.Oversized oversized : plan.oversized()) {
            sender.refuse(oversized.head(), oversized.reason(maxBytes));
        }
        return page.more(sender.send(plan.calls()));
    }

    /** Ends the session: its partitions pass to the other relays. */
    private void closeSession() {
        ownership.released();
        store.close();
    }

    private static Duration min(Duration a, Duration b) {
        Duration m = a.compareTo(b) < 0 ? a : b;
        return m.isNegative() ? Duration.ZERO : m;
    }
}
