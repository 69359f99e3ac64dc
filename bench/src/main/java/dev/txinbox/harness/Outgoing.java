package dev.txinbox.harness;

/** One SQS message the producer sends. {@code eventId} is null for poison without one. */
public record Outgoing(String groupId, String deduplicationId, String body, String eventId, Kind kind) {

    public enum Kind {
        EVENT, DUPLICATE, POISON
    }
}
