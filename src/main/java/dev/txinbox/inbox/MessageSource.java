package dev.txinbox.inbox;

import java.time.Instant;

/**
 * Where a message came from, as recorded with its inbox row. Broker-neutral on purpose: the inbox
 * stores these facts but never acts on them.
 *
 * @param queue        source queue name
 * @param messageId    the broker's id for this copy (changes when a producer re-sends)
 * @param groupId      the broker's ordering group, if any
 * @param sentAt       when the broker accepted the message, if known
 * @param receiveCount how many times the broker has delivered this copy, if known
 * @param traceparent  the W3C trace context of the message's processing, if traced: kept with the row so that the
 *                     operator finds the message's trace (the broker's copy is deleted after the commit)
 */
public record MessageSource(String queue, String messageId, String groupId, Instant sentAt, Integer receiveCount,
        String traceparent) {

    public MessageSource(String queue, String messageId, String groupId, Instant sentAt, Integer receiveCount) {
        this(queue, messageId, groupId, sentAt, receiveCount, null);
    }

    public static MessageSource unknown() {
        return new MessageSource(null, null, null, null, null, null);
    }
}
