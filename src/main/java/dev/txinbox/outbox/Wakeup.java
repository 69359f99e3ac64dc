package dev.txinbox.outbox;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One relay's doorbell. A ring that comes while the relay is busy is kept, so one that falls between its query and
 * its wait is not lost.
 */
final class Wakeup {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition rung = lock.newCondition();
    private boolean pending;

    void ring() {
        lock.lock();
        try {
            pending = true;
            rung.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until rung or {@code timeout} passed; true when rung. Consumes the ring. */
    boolean await(Duration timeout) throws InterruptedException {
        long nanos = timeout.toNanos();
        lock.lock();
        try {
            while (!pending && nanos > 0) {
                nanos = rung.awaitNanos(nanos);
            }
            boolean wasRung = pending;
            pending = false;
            return wasRung;
        } finally {
            lock.unlock();
        }
    }
}
