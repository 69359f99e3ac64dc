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
 */
public record MessageSource(String queue, String messageId, String groupId, Instant sentAt, Integer receiveCount) {

    public static MessageSource unknown() {
        return new MessageSource(null, null, null, null, null);
    }
}
