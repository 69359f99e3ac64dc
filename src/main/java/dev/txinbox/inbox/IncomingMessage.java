package dev.txinbox.inbox;

/**
 * A message as the inbox receives it from any transport.
 *
 * @param consumer         the consumer (handler) it is for
 * @param body             the raw body, expected to be the JSON envelope of CONTRACT §1
 * @param eventIdAttribute the event id carried beside the body (SQS attribute {@code event-id}), or null;
 *                         the body's {@code eventId} wins when both exist
 * @param source           where it came from
 */
public record IncomingMessage(String consumer, String body, String eventIdAttribute, MessageSource source) {
}
