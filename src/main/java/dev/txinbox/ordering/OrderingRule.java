package dev.txinbox.ordering;

/**
 * The ordering rule for one stream (consumer, aggregate), given the last sequence it consumed:
 * <ul>
 * <li>at or below it: the event is old news ({@link Decision#STALE});</li>
 * <li>exactly the next one: apply it, then whatever was parked right behind it ({@link Decision#APPLY});</li>
 * <li>beyond the next one: a predecessor is missing, so keep it until the gap fills ({@link Decision#PARK}).</li>
 * </ul>
 * Parking instead of dropping is the difference from the naive sequence check: an event that
 * arrives before its predecessor is kept, never lost.
 */
public final class OrderingRule {

    public enum Decision {
        STALE,
        APPLY,
        PARK
    }

    private OrderingRule() {
    }

    public static Decision decide(long lastSequence, long sequence) {
        if (sequence <= lastSequence) {
            return Decision.STALE;
        }
        return sequence == lastSequence + 1 ? Decision.APPLY : Decision.PARK;
    }

    /** What an entry records when it is stale. */
    public static String staleReason(long lastSequence, long sequence) {
        return "sequence " + sequence + " is not after the last applied " + lastSequence;
    }

    /** What an entry records while it is parked. */
    public static String parkedReason(long lastSequence) {
        return "waiting for sequence " + (lastSequence + 1);
    }
}
