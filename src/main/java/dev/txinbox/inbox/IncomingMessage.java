package dev.txinbox.inbox;

import io.opentelemetry.context.Context;

/**
 * A message as the inbox receives it from any transport.
 *
 * @param consumer         the consumer (handler) it is for
 * @param body             the raw body, expected to be the JSON envelope of CONTRACT §1
 * @param eventIdAttribute the event id carried beside the body (SQS attribute {@code event-id}), or null;
 *                         the body's {@code eventId} wins when both exist
 * @param source           where it came from
 * @param trace            the trace context its handler runs in (so that the outbox events it records continue
 *                         the message's trace), or null when the message is not traced
 */
public record IncomingMessage(String consumer, String body, String eventIdAttribute, MessageSource source,
        Context trace) {

    public IncomingMessage(String consumer, String body, String eventIdAttribute, MessageSource source) {
        this(consumer, body, eventIdAttribute, source, null);
    }
}
