package dev.txinbox.sql;

import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * What is said or rung about a change only once its transaction has committed, and never if it rolls back: a relay
 * woken before the commit would read the old rows, a log line written before it could tell of what never happened.
 */
public final class AfterCommit {

    private AfterCommit() {
    }

    /** Runs {@code action} after the current transaction commits (one must be active). */
    public static void run(TransactionSynchronizationRegistry transaction, Runnable action) {
        transaction.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
            }

            @Override
            public void afterCompletion(int status) {
                if (status == Status.STATUS_COMMITTED) {
                    action.run();
                }
            }
        });
    }
}
