package dev.txinbox.outbox;

import java.time.Instant;
import java.util.UUID;

/**
 * The head of an aggregate's pending stream: its lowest unpublished event, the only one of it the relay may send.
 * {@code spanContext}: the recording transaction's trace context ({@code tracingspancontext}), or null.
 */
record Head(UUID id, String aggregateType, String aggregateId, String type, Instant timestamp, String payload,
        long sequence, int attempts, int partition, String spanContext) {
}
