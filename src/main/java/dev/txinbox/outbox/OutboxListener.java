package dev.txinbox.outbox;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jboss.logging.Logger;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Hears what other pods committed for this pod's partitions ({@link OutboxSignal}): it listens on a PostgreSQL
 * connection of its own and rings the relays that own a partition a notification names. Best effort: while it has
 * no connection, the relays still find those events at their next poll, and after it connects again it rings them
 * all once, for what it may have missed.
 */
public final class OutboxListener {

    private static final Logger LOG = Logger.getLogger(OutboxListener.class);
    private static final int WAIT_MILLIS = 1_000;
    /** A connection that only listens would not notice a server gone silent: it asks now and then. */
    private static final Duration CHECK_EVERY = Duration.ofSeconds(30);
    private static final Duration BACKOFF_CAP = Duration.ofSeconds(30);

    private final String name;
    private final OutboxRelay.Connector connector;
    private final OutboxSignal signal;
    private volatile boolean running;
    private volatile boolean listening;
    private Thread thread;

    OutboxListener(String name, OutboxRelay.Connector connector, OutboxSignal signal) {
        this.name = name;
        this.connector = connector;
        this.signal = signal;
    }

    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        thread = new Thread(this::loop, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Whether it hears the other pods now. */
    public boolean listening() {
        return listening;
    }

    public void stop(Duration timeout) {
        Thread listening;
        synchronized (this) {
            running = false;
            listening = thread;
            thread = null;
        }
        if (listening != null) {
            try {
                listening.join(timeout.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void loop() {
        Duration backoff = Duration.ofSeconds(1);
        while (running) {
            try (Connection connection = connector.open()) {
                connection.setAutoCommit(true);
                try (Statement s = connection.createStatement()) {
                    s.execute("listen " + OutboxSignal.CHANNEL);
                }
                listening = true;
                signal.wake();
                backoff = Duration.ofSeconds(1);
                listen(connection);
            } catch (SQLException e) {
                LOG.debugf("outbox listener %s: %s; the relays poll meanwhile", name, e.getMessage());
            }
            listening = false;
            if (running) {
                try {
                    Thread.sleep(backoff.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                backoff = backoff.multipliedBy(2).compareTo(BACKOFF_CAP) > 0 ? BACKOFF_CAP : backoff.multipliedBy(2);
            }
        }
    }

    private void listen(Connection connection) throws SQLException {
        PGConnection pg = connection.unwrap(PGConnection.class);
        long nextCheck = System.nanoTime() + CHECK_EVERY.toNanos();
        while (running) {
            PGNotification[] notifications = pg.getNotifications(WAIT_MILLIS);
            if (notifications != null && notifications.length > 0) {
                signal.wake(partitions(notifications));
            }
            if (System.nanoTime() > nextCheck) {
                try (Statement s = connection.createStatement()) {
                    s.execute("select 1");
                }
                nextCheck = System.nanoTime() + CHECK_EVERY.toNanos();
            }
        }
    }

    static List<Integer> partitions(PGNotification[] notifications) {
        List<Integer> partitions = new ArrayList<>();
        for (PGNotification notification : notifications) {
            for (String part : notification.getParameter().split(",")) {
                try {
                    partitions.add(Integer.parseInt(part.strip()));
                } catch (NumberFormatException e) {
                    // not ours to read: another writer on the channel
                }
            }
        }
        return partitions;
    }
}
