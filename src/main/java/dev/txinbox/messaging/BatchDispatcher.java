package dev.txinbox.messaging;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;

import org.jboss.logging.Logger;

/**
 * Hands items to worker threads in batches. A batch is whatever is ready when a worker comes for it, up
 * to {@code batchSize}: the waiting items of every key (message group) that has nothing in a batch being
 * processed, all of one key together and in arrival order. A key is never in two batches at once, so the
 * items of one key are processed one after another, in order, and different keys side by side.
 * <p>
 * No linger: a worker never waits for a batch to fill. At light load a batch of one goes at once, so
 * latency does not grow; under load the items that arrived while the workers were busy make the batch.
 * <p>
 * {@link #submit} pushes back (returns an unfinished stage) once {@code maxInFlight} items are waiting
 * or being processed, so that the channel stops fetching instead of piling up messages whose visibility
 * clocks run. The items waiting or being processed are counted in a {@link CallsInFlight}, which the stop
 * waits on ({@link #shutdown}).
 */
public final class BatchDispatcher<T> {

    private static final Logger LOG = Logger.getLogger(BatchDispatcher.class);
    private static final CompletableFuture<Void> ACCEPTED = CompletableFuture.completedFuture(null);

    private final String name;
    private final int maxInFlight;
    private final int batchSize;
    private final Function<T, String> key;
    private final Consumer<List<T>> processor;
    private final List<Thread> workers = new ArrayList<>();

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Map<String, ArrayDeque<T>> waiting = new HashMap<>();
    /** Keys with waiting items and nothing in a batch, in the order they became ready. */
    private final Set<String> ready = new LinkedHashSet<>();
    private final Set<String> busy = new HashSet<>();
    private final CallsInFlight inFlight = new CallsInFlight();
    private boolean stopping;
    private final Queue<CompletableFuture<Void>> rooms = new ConcurrentLinkedQueue<>();

    public BatchDispatcher(String name, int workerCount, int maxInFlight, int batchSize, Function<T, String> key,
            Consumer<List<T>> processor) {
        this.name = name;
        this.maxInFlight = Math.max(maxInFlight, 1);
        this.batchSize = Math.max(batchSize, 1);
        this.key = key;
        this.processor = processor;
        for (int i = 1; i <= Math.max(workerCount, 1); i++) {
            Thread worker = new Thread(this::work, "txinbox-" + name + "-" + i);
            worker.setDaemon(true);
            workers.add(worker);
            worker.start();
        }
    }

    /** Queues {@code item} behind the earlier items of its key; the stage completes when there is room for more. */
    public CompletionStage<Void> submit(T item) {
        String k = key.apply(item);
        boolean full;
        lock.lock();
        try {
            waiting.computeIfAbsent(k, x -> new ArrayDeque<>()).add(item);
            if (!busy.contains(k)) {
                ready.add(k);
            }
            inFlight.started();
            full = inFlight.count() >= maxInFlight;
            changed.signal();
        } finally {
            lock.unlock();
        }
        if (!full) {
            return ACCEPTED;
        }
        CompletableFuture<Void> room = new CompletableFuture<>();
        rooms.add(room);
        if (inFlight() < maxInFlight) {
            wakeOne();
        }
        return room;
    }

    int inFlight() {
        return inFlight.count();
    }

    boolean stopping() {
        lock.lock();
        try {
            return stopping;
        } finally {
            lock.unlock();
        }
    }

    private void work() {
        while (true) {
            List<T> batch = new ArrayList<>(batchSize);
            List<String> keys = new ArrayList<>();
            lock.lock();
            try {
                while (ready.isEmpty()) {
                    if (stopping && inFlight.count() == 0) {
                        return;
                    }
                    changed.awaitUninterruptibly();
                }
                for (Iterator<String> it = ready.iterator(); it.hasNext() && batch.size() < batchSize;) {
                    String k = it.next();
                    it.remove();
                    busy.add(k);
                    keys.add(k);
                    ArrayDeque<T> items = waiting.get(k);
                    while (!items.isEmpty() && batch.size() < batchSize) {
                        batch.add(items.poll());
                    }
                    if (items.isEmpty()) {
                        waiting.remove(k);
                    }
                }
            } finally {
                lock.unlock();
            }
            try {
                processor.accept(batch);
            } catch (RuntimeException | Error e) {
                LOG.errorf(e, "consumer %s: unexpected failure outside the inbox", name);
            }
            lock.lock();
            try {
                for (String k : keys) {
                    busy.remove(k);
                    if (waiting.containsKey(k)) {
                        ready.add(k);
                    }
                }
                inFlight.ended(batch.size());
                changed.signalAll();
            } finally {
                lock.unlock();
            }
            for (int i = 0; i < batch.size(); i++) {
                wakeOne();
            }
        }
    }

    /**
     * Lets every item run to its end (at most {@code grace}), then the threads end. Items not started yet still
     * run: the receiver is stopping, so their batch leaves its messages to the stop's hand-back at once, and only
     * what is already processing takes time. Returns whether every item ran.
     */
    public boolean shutdown(Duration grace) {
        lock.lock();
        try {
            stopping = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        rooms.forEach(room -> room.complete(null));
        boolean done;
        try {
            done = inFlight.awaitNone(grace);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            done = false;
        }
        if (!done) {
            LOG.warnf("consumer %s: %d messages still in flight after %s; they will be redelivered", name, inFlight(),
                    grace);
            workers.forEach(Thread::interrupt);
        }
        return done;
    }

    private void wakeOne() {
        CompletableFuture<Void> room = rooms.poll();
        if (room != null) {
            room.complete(null);
        }
    }
}
