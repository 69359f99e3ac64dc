package dev.txinbox.inbox;

/** The recorded state of an inbox row (CONTRACT §3). */
public enum InboxStatus {
    PROCESSED,
    STALE,
    PARKED,
    REJECTED,
    FAILED,
    DEAD;

    /** FAILED and DEAD entries never took effect, so a redelivery or re-send may claim them again. */
    public boolean reclaimable() {
        return this == FAILED || this == DEAD;
    }
}
