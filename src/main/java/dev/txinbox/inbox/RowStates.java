package dev.txinbox.inbox;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

import dev.txinbox.ordering.ParkedRun;

/**
 * The states a pass gives the inbox rows it touched, other than the PROCESSED its claims start with: collected
 * while the pass runs and written once, in one statement, at its end ({@link InboxRepository#write}). The
 * latest state of a row wins: an event parked and drained in the same pass ends PROCESSED.
 */
final class RowStates {

    /**
     * @param finished   the entry is done (processed_at set); a parked one is not
     * @param addAttempt one more failed attempt (a parked event that failed when drained)
     */
    record State(long id, InboxStatus status, String text, boolean finished, boolean addAttempt) {
    }

    private final Map<Long, State> states = new TreeMap<>();

    void finish(long id, InboxStatus status, String text) {
        states.put(id, new State(id, status, text, true, false));
    }

    void park(long id, String why) {
        states.put(id, new State(id, InboxStatus.PARKED, why, false, false));
    }

    /** A parked event failed when drained: it stays parked, with the error and one attempt more. */
    void failedParked(long id, String error) {
        states.put(id, new State(id, InboxStatus.PARKED, error, false, true));
    }

    /** What a drain decided for a parked event it reached. */
    void settled(ParkedRun.Settled settled) {
        long id = settled.parked().id();
        ParkedRun.Applied applied = settled.applied();
        switch (applied.kind()) {
            case APPLIED -> finish(id, InboxStatus.PROCESSED, null);
            case REJECTED -> finish(id, InboxStatus.REJECTED, applied.detail());
            case STALE -> finish(id, InboxStatus.STALE, applied.detail());
            case FAILED -> failedParked(id, applied.detail());
        }
    }

    /** In id order. */
    Collection<State> all() {
        return states.values();
    }
}
