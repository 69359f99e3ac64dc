package dev.txinbox.messaging;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Work under way that the stop waits for before what it needs goes away (the SQS client and its event loop,
 * the database): counted in and out, awaited with a deadline. The one way txinbox waits for work in flight: the
 * receives, the queues' calls, the settlement's calls and the batches of each consumer all count here.
 * <p>
 * With a limit, {@link #startWhenRoom()} waits while the limit is reached, so that a producer of work slows
 * down instead of piling it up.
 */
public final class CallsInFlight {

    private final int limit;
    private int inFlight;

    /** Without a limit. */
    public CallsInFlight() {
        this(Integer.MAX_VALUE);
    }

    public CallsInFlight(int limit) {
        this.limit = Math.max(limit, 1);
    }

    /** One more under way, whatever the limit. */
    public synchronized void started() {
        inFlight++;
    }

    /** One more under way, once fewer than the limit are. */
    public synchronized void startWhenRoom() throws InterruptedException {
        while (inFlight >= limit) {
            wait();
        }
        inFlight++;
    }

    public void ended() {
        ended(1);
    }

    public synchronized void ended(int count) {
        inFlight -= count;
        notifyAll();
    }

    public synchronized int count() {
        return inFlight;
    }

    /** Waits until none is under way, at most {@code timeout}; returns whether none is. */
    public synchronized boolean awaitNone(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (inFlight > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }
}
