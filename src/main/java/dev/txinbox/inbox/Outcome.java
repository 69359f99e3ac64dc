package dev.txinbox.inbox;

import java.util.Locale;

/** Every received message ends in exactly one of these (CONTRACT §2). */
public enum Outcome {
    PROCESSED,
    DUPLICATE,
    CONFLICT,
    STALE,
    PARKED,
    REJECTED,
    RETRIED,
    DEAD_LETTERED;

    /** The lower-case name used in metrics, logs and the API. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether the source message may be deleted once this outcome is known. */
    public boolean settlesMessage() {
        return this != RETRIED && this != DEAD_LETTERED;
    }
}
