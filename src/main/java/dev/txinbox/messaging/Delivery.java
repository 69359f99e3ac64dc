package dev.txinbox.messaging;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;

import dev.txinbox.inbox.IncomingMessage;
import dev.txinbox.inbox.MessageSource;
import io.opentelemetry.context.Context;

/**
 * One received copy of a message, as the pipeline sees it: what it needs to order, fence, trace and hand it to the
 * inbox, read once when the transport delivered it. The transport's adapter makes it (a subclass that also keeps
 * what only the adapter needs to settle the copy, {@link DeliverySettlement}), so the batch, the dispatcher and the
 * settlement read a delivery without calling into the adapter, and its behaviour (age, ordering key) is decided
 * here. A class rather than an interface for that reason, and so that a delivery is still one object per message.
 * <p>
 * Equal only to itself: two copies of one message are two deliveries.
 */
public abstract class Delivery {

    private final String queue;
    private final String messageId;
    private final String body;
    private final String groupId;
    private final BigInteger sequenceNumber;
    private final int receiveCount;
    private final Instant sentAt;
    private final Instant firstReceivedAt;
    private final String eventIdAttribute;
    private final String traceparent;
    private final String awsTraceHeader;
    private final long receivedAtNanos;
    private final long takenAtNanos;

    /**
     * @param queue            the queue's name
     * @param messageId        the broker's id of the message
     * @param body             the raw body
     * @param groupId          the broker's ordering group, or null
     * @param sequenceNumber   the broker's order of the message within its group, or null
     * @param receiveCount     how many times the broker has delivered the message, this copy included
     * @param sentAt           when the broker accepted it, or null
     * @param firstReceivedAt  when the broker first delivered it, or null
     * @param eventIdAttribute the event id carried beside the body, or null
     * @param traceparent      the producer's W3C trace context, or null
     * @param awsTraceHeader   the producer's X-Ray trace header, or null
     * @param receivedAtNanos  {@link System#nanoTime} when the receive that brought it answered
     * @param takenAtNanos     {@link System#nanoTime} when the pipeline took it from the channel
     */
    protected Delivery(String queue, String messageId, String body, String groupId, BigInteger sequenceNumber,
            int receiveCount, Instant sentAt, Instant firstReceivedAt, String eventIdAttribute, String traceparent,
            String awsTraceHeader, long receivedAtNanos, long takenAtNanos) {
        this.queue = queue;
        this.messageId = messageId;
        this.body = body;
        this.groupId = groupId;
        this.sequenceNumber = sequenceNumber;
        this.receiveCount = receiveCount;
        this.sentAt = sentAt;
        this.firstReceivedAt = firstReceivedAt;
        this.eventIdAttribute = eventIdAttribute;
        this.traceparent = traceparent;
        this.awsTraceHeader = awsTraceHeader;
        this.receivedAtNanos = receivedAtNanos;
        this.takenAtNanos = takenAtNanos;
    }

    /** Messages of one group are processed one after another; without a group each is its own. */
    public final String orderingKey() {
        return groupId != null ? groupId : "message:" + messageId;
    }

    /**
     * How long this copy has been in flight, at least. Measured from when the pipeline took it from the channel
     * and, for a first delivery, from the broker's first-receive time: a copy that waited in the connector's
     * buffer is older than it looks here.
     */
    public final Duration age() {
        Duration taken = Duration.ofNanos(System.nanoTime() - takenAtNanos);
        if (receiveCount == 1 && firstReceivedAt != null) {
            Duration received = Duration.between(firstReceivedAt, Instant.now());
            return received.compareTo(taken) > 0 ? received : taken;
        }
        return taken;
    }

    /**
     * As the inbox receives it, with the trace its handler records outbox events in ({@code trace}, null when not
     * traced) and the {@code traceparent} the row keeps.
     */
    public final IncomingMessage toIncoming(String consumer, String traceparent, Context trace) {
        return new IncomingMessage(consumer, body, eventIdAttribute,
                new MessageSource(queue, messageId, groupId, sentAt, receiveCount, traceparent), trace);
    }

    public final String queue() {
        return queue;
    }

    public final String messageId() {
        return messageId;
    }

    public final String body() {
        return body;
    }

    public final String groupId() {
        return groupId;
    }

    public final BigInteger sequenceNumber() {
        return sequenceNumber;
    }

    public final int receiveCount() {
        return receiveCount;
    }

    public final Instant sentAt() {
        return sentAt;
    }

    public final Instant firstReceivedAt() {
        return firstReceivedAt;
    }

    public final String eventIdAttribute() {
        return eventIdAttribute;
    }

    public final String traceparent() {
        return traceparent;
    }

    public final String awsTraceHeader() {
        return awsTraceHeader;
    }

    public final long receivedAtNanos() {
        return receivedAtNanos;
    }

    public final long takenAtNanos() {
        return takenAtNanos;
    }
}
