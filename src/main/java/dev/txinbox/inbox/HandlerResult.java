package dev.txinbox.inbox;

/**
 * What a handler did with an event: applied it, or rejected it for a business reason.
 * A rejection is a final outcome, kept with its reason; it is not retried.
 *
 * @param applied whether the event took effect
 * @param reason  why it was rejected; null when applied
 */
public record HandlerResult(boolean applied, String reason) {

    private static final HandlerResult APPLIED = new HandlerResult(true, null);

    public static HandlerResult success() {
        return APPLIED;
    }

    public static HandlerResult rejected(String reason) {
        return new HandlerResult(false, reason);
    }
}
