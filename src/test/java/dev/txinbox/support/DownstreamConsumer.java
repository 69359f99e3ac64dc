package dev.txinbox.support;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;

import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

import dev.txinbox.inbox.HandlerResult;
import dev.txinbox.inbox.InboxEvent;
import dev.txinbox.inbox.InboxHandler;
import dev.txinbox.inbox.InvalidMessageException;
import dev.txinbox.messaging.SqsInboxReceiver;
import io.quarkus.arc.properties.IfBuildProperty;

/**
 * A service downstream of the orders' outbox, living only in the tests that switch it on
 * ({@code test.downstream=true}, see {@code ChainedOutboxTest}): it consumes what the relay publishes
 * through an inbox of its own (consumer "downstream"), with the same claim and the same per-aggregate ordering as
 * any txinbox consumer, and records each applied event in {@code downstream_effects}. Only there, because in the
 * other tests nothing must take the published events off the queue before the test reads them.
 */
@ApplicationScoped
@IfBuildProperty(name = "test.downstream", stringValue = "true")
public class DownstreamConsumer implements InboxHandler {

    /**
     * A test profile's settings that switch this consumer on, on the queue the relay publishes to in that profile
     * alone ({@link ElasticMqResource#CHAIN_EVENTS}).
     */
    public static Map<String, String> switchedOn() {
        String events = ElasticMqResource.CHAIN_EVENTS;
        return Map.ofEntries(
                Map.entry("test.downstream", "true"),
                Map.entry("txinbox.outbox.queue", events),
                Map.entry("txinbox.consumers.downstream.queue", events),
                Map.entry("txinbox.consumers.downstream.dlq", ElasticMqResource.CHAIN_EVENTS_DLQ),
                Map.entry("mp.messaging.incoming.downstream.connector", "smallrye-sqs"),
                Map.entry("mp.messaging.incoming.downstream.queue", events),
                Map.entry("mp.messaging.incoming.downstream.max-number-of-messages", "10"),
                Map.entry("mp.messaging.incoming.downstream.wait-time-seconds", "1"),
                Map.entry("mp.messaging.incoming.downstream.ack-strategy", "ignore"),
                Map.entry("mp.messaging.incoming.downstream.failure-strategy", "ignore"),
                Map.entry("mp.messaging.incoming.downstream.receive.request.customizer", "txinbox"));
    }

    public static final String CONSUMER = "downstream";
    private static final Set<String> TYPES = Set.of("OrderAccepted", "OrderPaid", "OrderShipped", "OrderCancelled");

    private final EntityManager entityManager;
    private final SqsInboxReceiver receiver;

    public DownstreamConsumer(EntityManager entityManager, SqsInboxReceiver receiver) {
        this.entityManager = entityManager;
        this.receiver = receiver;
    }

    @Incoming(CONSUMER)
    public CompletionStage<Void> receive(Message<String> message) {
        return receiver.accept(CONSUMER, message);
    }

    @Override
    public String consumer() {
        return CONSUMER;
    }

    @Override
    public void validate(InboxEvent event) {
        if (!TYPES.contains(event.type())) {
            throw new InvalidMessageException("unknown event type '" + event.type() + "' for consumer downstream");
        }
        if (event.sequence() == null || !event.payload().hasNonNull("causedBy")) {
            throw new InvalidMessageException("a downstream order event needs its sequence and payload.causedBy");
        }
    }

    @Override
    public HandlerResult apply(InboxEvent event) {
        entityManager.createNativeQuery("insert into downstream_effects (event_id, order_id, sequence_no, type,"
                + " caused_by) values (?1, ?2, ?3, ?4, ?5)")
                .setParameter(1, event.eventId())
                .setParameter(2, event.aggregateId())
                .setParameter(3, event.sequence())
                .setParameter(4, event.type())
                .setParameter(5, event.payload().get("causedBy").asText())
                .executeUpdate();
        return HandlerResult.success();
    }
}
