package dev.txinbox.messaging;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.txinbox.inbox.Inbox;

/**
 * Pauses consumption while the database is unreachable. Without it every received message would fail
 * fast, go back to the queue and come again, climbing towards the queue's maxReceiveCount for nothing.
 * Closed by the first outage a worker meets; while closed, workers wait before they take a message and
 * the channel fetches nothing new; a probe pings the database every second and opens the gate again.
 */
@ApplicationScoped
public class DatabaseGate {

    private static final Logger LOG = Logger.getLogger(DatabaseGate.class);
    private static final Duration PROBE_INTERVAL = Duration.ofSeconds(1);
    private static final CompletableFuture<Void> OPEN = CompletableFuture.completedFuture(null);

    private final Inbox inbox;
    private final ScheduledExecutorService prober = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "txinbox-database-probe");
        thread.setDaemon(true);
        return thread;
    });
    private CompletableFuture<Void> reopened = OPEN;
    private ScheduledFuture<?> probing;
    private Instant closedAt;

    public DatabaseGate(Inbox inbox) {
        this.inbox = inbox;
    }

    public synchronized boolean isOpen() {
        return reopened.isDone();
    }

    /** Completes when the database is reachable (at once while it is). */
    public synchronized CompletionStage<Void> whenOpen() {
        return reopened;
    }

    synchronized void close(String error) {
        if (!reopened.isDone()) {
            return;
        }
        closedAt = Instant.now();
        reopened = new CompletableFuture<>();
        LOG.warnf("database unreachable, consumption paused until it answers: %s", error);
        probing = prober.scheduleWithFixedDelay(this::probe, PROBE_INTERVAL.toMillis(), PROBE_INTERVAL.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** Blocks the calling worker until the database is reachable. */
    void awaitOpen() {
        CompletableFuture<Void> gate;
        synchronized (this) {
            gate = reopened;
        }
        try {
            gate.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the database", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    private void probe() {
        try {
            inbox.ping();
        } catch (RuntimeException e) {
            LOG.debugf("database still unreachable: %s", e.getMessage());
            return;
        }
        CompletableFuture<Void> toOpen;
        synchronized (this) {
            toOpen = reopened;
            probing.cancel(false);
            LOG.infof("database reachable again after %d s, consumption resumes",
                    Duration.between(closedAt, Instant.now()).toSeconds());
        }
        toOpen.complete(null);
    }

    /** Lets waiting workers go (they then leave their batch to the stop's hand-back): the service is stopping. */
    @PreDestroy
    public void shutdown() {
        prober.shutdownNow();
        synchronized (this) {
            reopened.complete(null);
        }
    }
}
