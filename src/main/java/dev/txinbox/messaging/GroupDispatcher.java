package dev.txinbox.messaging;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jboss.logging.Logger;

/**
 * Runs tasks one after another within a key (a message group) and side by side across keys, on a
 * fixed number of threads. A slow or failing group therefore delays only itself. {@link #submit}
 * pushes back (returns an unfinished stage) once {@code maxInFlight} tasks are waiting or running,
 * so that the channel stops fetching instead of piling up messages whose visibility clocks run.
 */
final class GroupDispatcher {

    private static final Logger LOG = Logger.getLogger(GroupDispatcher.class);
    private static final CompletableFuture<Void> ACCEPTED = CompletableFuture.completedFuture(null);

    private final String name;
    private final ExecutorService workers;
    private final int maxInFlight;
    private final ConcurrentHashMap<String, CompletableFuture<Void>> tails = new ConcurrentHashMap<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Queue<CompletableFuture<Void>> waiting = new ConcurrentLinkedQueue<>();

    GroupDispatcher(String name, int parallelism, int maxInFlight) {
        this.name = name;
        this.maxInFlight = Math.max(maxInFlight, 1);
        AtomicInteger threads = new AtomicInteger();
        this.workers = Executors.newFixedThreadPool(Math.max(parallelism, 1), runnable -> {
            Thread thread = new Thread(runnable, "txinbox-" + name + "-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Queues {@code task} behind the earlier tasks of {@code key}; the stage completes when there is room for more. */
    CompletionStage<Void> submit(String key, Runnable task) {
        inFlight.incrementAndGet();
        CompletableFuture<Void> tail = tails.compute(key, (k, previous) -> (previous == null ? ACCEPTED : previous)
                .handleAsync((ignored, failure) -> {
                    run(task);
                    return null;
                }, workers).thenApply(ignored -> (Void) null));
        tail.whenComplete((ignored, failure) -> {
            tails.remove(key, tail);
            inFlight.decrementAndGet();
            wakeOne();
        });
        if (inFlight.get() < maxInFlight) {
            return ACCEPTED;
        }
        CompletableFuture<Void> room = new CompletableFuture<>();
        waiting.add(room);
        if (inFlight.get() < maxInFlight) {
            wakeOne();
        }
        return room;
    }

    /**
     * Lets every task run to its end, then stops the threads. Tasks not started yet still run: the receiver
     * is stopping, so they hand their message back at once, and only what is already processing takes
     * time. (Shutting the pool down first rejected every task queued behind a running one of its group:
     * those messages stayed invisible for a whole visibility timeout. Found by the chaos suite.)
     */
    void shutdown(Duration grace) {
        waiting.forEach(room -> room.complete(null));
        long deadline = System.nanoTime() + grace.toNanos();
        try {
            while (inFlight.get() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            workers.shutdown();
            long left = Math.max(0, deadline - System.nanoTime());
            if (!workers.awaitTermination(left, TimeUnit.NANOSECONDS) || inFlight.get() > 0) {
                LOG.warnf("consumer %s: %d messages still in flight after %s; they will be redelivered", name,
                        inFlight.get(), grace);
                workers.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            workers.shutdownNow();
        }
    }

    private void run(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException | Error e) {
            LOG.errorf(e, "consumer %s: unexpected failure outside the inbox", name);
        }
    }

    private void wakeOne() {
        CompletableFuture<Void> room = waiting.poll();
        if (room != null) {
            room.complete(null);
        }
    }
}
