package dev.txinbox.messaging;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * SQS calls under way that the stop waits for before the client and its event loop go: counted in and out,
 * awaited with a deadline.
 */
final class CallsInFlight {

    private int inFlight;

    synchronized void started() {
        inFlight++;
    }

    synchronized void ended() {
        inFlight--;
        notifyAll();
    }

    /** Waits until no call is under way, at most {@code timeout}; returns whether none is. */
    synchronized boolean awaitNone(Duration timeout) throws InterruptedException {
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
