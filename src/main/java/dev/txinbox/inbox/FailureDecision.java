package dev.txinbox.inbox;

/**
 * What a failure leads to, decided in one place and nowhere else. Pure: it is told what the failure is
 * ({@link FailurePolicy#classify}), where it happened and what was tried already, and answers with an action;
 * {@link Inbox} carries the action out. Two questions:
 * <ul>
 * <li>{@link #afterFailedPass}: a pass of a batch failed and its transaction rolled back; how does the batch
 * go on? It must end with every message either committed once or sent back, and only a message at fault may
 * count an attempt.</li>
 * <li>{@link #ofFailedMessage}, {@link #afterAttempt}, {@link #whenRecordingFailed}: a message failed (its batch
 * committed without it); what becomes of it?</li>
 * </ul>
 * The third consequence of a failure, that later messages of the failed one's group are held back, is
 * {@link HeldGroups}'.
 */
public final class FailureDecision {

    /** A deadlock or serialization failure reruns the batch at once; past this, its messages go back, counting nothing. */
    static final int MAX_CONTENTION_RERUNS = 3;
    /**
     * After this many passes failed on a message or parked event of theirs, the batch's messages run one by one:
     * each pass costs the whole batch, each transaction of one only its message.
     */
    static final int MAX_FAILED_PASSES = 3;

    /** Where a pass was when it failed. */
    public enum Place {
        /** In one message's work (its claim, its ordering, its handler, or the flush of its writes). */
        MESSAGE,
        /** Applying a parked event that a message of the batch let through. */
        PARKED,
        /** In the batch's own statements (claims, locks, the batch's flush, the final states) or its commit. */
        BATCH
    }

    /** How a pass runs. */
    public enum Mode {
        /** One flush at the end: the cheapest, but a failure at that flush names no message. */
        FAST,
        /** A flush after every handler call, so that whatever fails names the message or parked event at fault. */
        LOCATING
    }

    /** How a batch goes on after a failed pass. */
    public enum Rerun {
        /** The same pass again at once, counting nothing (contention). */
        AGAIN,
        /** Again without the message at fault; its attempt is recorded once the rest committed. */
        WITHOUT_MESSAGE,
        /** Again without applying the parked event at fault; it stays parked with its error. */
        WITHOUT_PARKED,
        /** Again in {@link Mode#LOCATING}, to find who is at fault. */
        LOCATE,
        /** Each message in a transaction of its own, so that only the one at fault counts an attempt. */
        ONE_BY_ONE,
        /** Every message back to the queue, counting nothing, and consumption paused: the database is away. */
        WAIT_FOR_DATABASE,
        /** Every message back to the queue, counting nothing: the contention did not end. */
        SEND_BACK
    }

    /** What becomes of a message that failed. */
    public enum Fate {
        /** It can never succeed: to the dead-letter queue now. */
        DEAD_LETTER,
        /** Not its fault: back to the queue, counting nothing, and consumption paused until the database answers. */
        WAIT_FOR_DATABASE,
        /** Count an attempt, then {@link #afterAttempt}. */
        RECORD_ATTEMPT,
        /** Back to the queue after its backoff. */
        RETRY,
        /** Back to the queue after a short pause, counting nothing, pausing nobody. */
        RETRY_UNCOUNTED
    }

    private FailureDecision() {
    }

    /**
     * @param kind             what the failure is
     * @param databaseError    whether the database or Hibernate raised it ({@link FailurePolicy#isDatabaseError})
     * @param place            where the pass was
     * @param mode             how the pass ran
     * @param batchSize        messages in the batch
     * @param contentionReruns passes of this batch already rerun for contention
     * @param failedPasses     passes of this batch that already failed on a message or parked event
     */
    public static Rerun afterFailedPass(FailurePolicy.Kind kind, boolean databaseError, Place place, Mode mode,
            int batchSize, int contentionReruns, int failedPasses) {
        if (kind == FailurePolicy.Kind.OUTAGE) {
            return Rerun.WAIT_FOR_DATABASE;
        }
        if (kind == FailurePolicy.Kind.CONTENTION) {
            return contentionReruns < MAX_CONTENTION_RERUNS ? Rerun.AGAIN : Rerun.SEND_BACK;
        }
        if (place == Place.BATCH) {
            if (mode == Mode.FAST) {
                return Rerun.LOCATE;
            }
            // Located, yet no message's own work failed: the batch's statements or its commit did.
            return batchSize == 1 ? Rerun.WITHOUT_MESSAGE : Rerun.ONE_BY_ONE;
        }
        if (databaseError && mode == Mode.FAST) {
            return Rerun.LOCATE;
        }
        if (failedPasses >= MAX_FAILED_PASSES) {
            return Rerun.ONE_BY_ONE;
        }
        return place == Place.MESSAGE ? Rerun.WITHOUT_MESSAGE : Rerun.WITHOUT_PARKED;
    }

    /** A message failed; its batch committed without it. */
    public static Fate ofFailedMessage(FailurePolicy.Kind kind) {
        return switch (kind) {
            case PERMANENT -> Fate.DEAD_LETTER;
            case OUTAGE -> Fate.WAIT_FOR_DATABASE;
            case CONTENTION -> Fate.RETRY_UNCOUNTED;
            case TRANSIENT -> Fate.RECORD_ATTEMPT;
        };
    }

    /** Its attempt is recorded: {@code attempts} so far, {@code maxAttempts} allowed. */
    public static Fate afterAttempt(int attempts, int maxAttempts) {
        return attempts >= maxAttempts ? Fate.DEAD_LETTER : Fate.RETRY;
    }

    /** Recording its attempt failed too, for this {@code kind} of reason. */
    public static Fate whenRecordingFailed(FailurePolicy.Kind kind) {
        return switch (kind) {
            case OUTAGE -> Fate.WAIT_FOR_DATABASE;
            case PERMANENT -> Fate.DEAD_LETTER;
            case CONTENTION, TRANSIENT -> Fate.RETRY_UNCOUNTED;
        };
    }
}
