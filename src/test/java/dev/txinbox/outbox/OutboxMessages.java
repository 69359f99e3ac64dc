package dev.txinbox.outbox;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.txinbox.support.ElasticMqResource;
import dev.txinbox.support.TestQueues;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * What the relay published to order-events.fifo, per message group (aggregate) in the order the queue delivered
 * it. Other tests' events share the queue: each test reads the groups it made.
 */
final class OutboxMessages {

    private final TestQueues queues;
    private final Map<String, List<Message>> byGroup = new ConcurrentHashMap<>();

    OutboxMessages(TestQueues queues) {
        this.queues = queues;
    }

    /** Takes what the queue has now; returns the messages of {@code group} so far. */
    synchronized List<Message> of(String group) {
        for (Message message : queues.drain(ElasticMqResource.ORDER_EVENTS)) {
            byGroup.computeIfAbsent(message.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID),
                    g -> new ArrayList<>()).add(message);
        }
        return List.copyOf(byGroup.getOrDefault(group, List.of()));
    }
}
