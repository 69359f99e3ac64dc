package dev.txinbox.inbox;

/** The recorded state of an inbox row (CONTRACT §3). */
public enum InboxStatus {
    PROCESSED,
    STALE,
    PARKED,
    REJECTED,
    /** Never took effect: a redelivery or re-send claims it again (InboxRepository#claim). */
    FAILED,
    /** Never took effect: a redelivery or re-send claims it again (InboxRepository#claim), like FAILED. */
    DEAD
}
