package dev.txinbox.outbox;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.sql.SessionCheck;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;

/**
 * The relay that runs inside the service, on by default ({@code TXINBOX_OUTBOX_RELAY_ENABLED}): started with the
 * service, stopped before it ends, so that its partitions pass to the other pods at once.
 */
@ApplicationScoped
public class EmbeddedRelay {

    private static final Logger LOG = Logger.getLogger(EmbeddedRelay.class);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

    private final TxinboxConfig.Outbox config;
    private final OutboxPublisher publisher;
    private final OutboxSignal signal;
    private final OutboxMetrics metrics;
    private final ObjectMapper mapper;
    private final SessionCheck sessions;
    private OutboxRelay relay;
    private OutboxListener listener;

    public EmbeddedRelay(TxinboxConfig config, OutboxPublisher publisher, OutboxSignal signal, OutboxMetrics metrics,
            ObjectMapper mapper, SessionCheck sessions) {
        this.config = config.outbox();
        this.publisher = publisher;
        this.signal = signal;
        this.metrics = metrics;
        this.mapper = mapper;
        this.sessions = sessions;
    }

    public boolean enabled() {
        return config.relay().enabled();
    }

    void start(@Observes StartupEvent started) {
        if (!enabled()) {
            LOG.infof("outbox relay disabled (txinbox.outbox.relay.enabled=false): events stay in outbox_events"
                    + " for another publisher");
            return;
        }
        synchronized (this) {
            relay = newRelay("outbox-relay", signal);
            relay.start();
            listener = newListener("outbox-listener", signal);
            listener.start();
        }
    }

    void stop(@Observes ShutdownEvent stopping) {
        OutboxRelay running;
        OutboxListener listening;
        synchronized (this) {
            running = relay;
            listening = listener;
        }
        if (listening != null) {
            listening.stop(STOP_TIMEOUT);
        }
        if (running != null) {
            running.stop(STOP_TIMEOUT);
        }
    }

    /** The relay of this service; empty when disabled. */
    public synchronized Optional<OutboxRelay> relay() {
        return Optional.ofNullable(relay);
    }

    /** What hears the other pods' commits for this one; empty when the relay is disabled. */
    public synchronized Optional<OutboxListener> listener() {
        return Optional.ofNullable(listener);
    }

    /** A relay with a connection of its own (not started): the embedded one, or a second instance in a test. */
    public OutboxRelay newRelay(String name) {
        return newRelay(name, signal);
    }

    /**
     * A relay rung through {@code signal}: this process's, or in a test, another pod's (a signal of its own, which
     * this process's commits do not ring directly).
     */
    public OutboxRelay newRelay(String name, OutboxSignal signal) {
        return new OutboxRelay(name, () -> connect("txinbox-outbox-relay"), publisher, config, signal, metrics, mapper);
    }

    /** What other pods' commits ring through PostgreSQL, on {@code signal}'s relays (not started). */
    public OutboxListener newListener(String name, OutboxSignal signal) {
        return new OutboxListener(name, () -> connect("txinbox-outbox-listener"), signal);
    }

    /** The relay's own connection: direct, or through a pooler that keeps its session ({@link SessionCheck}). */
    private Connection connect(String applicationName) throws SQLException {
        return sessions.connect(sessions.relayUrl(), applicationName);
    }
}
