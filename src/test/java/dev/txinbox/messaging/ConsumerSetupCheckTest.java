package dev.txinbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** A consumer without handler or channel, or switched off with its channel on, is refused at start, with every problem named. */
class ConsumerSetupCheckTest {

    @Test
    void aConsumerWithHandlerAndChannelPasses() {
        assertEquals(List.of(), ConsumerSetupCheck.problems(Set.of("orders"), name -> true, name -> true));
    }

    @Test
    void everyMissingPieceIsNamedPerConsumer() {
        List<String> problems = ConsumerSetupCheck.problems(Set.of("payments", "orders"), "orders"::equals,
                name -> false);
        assertEquals(List.of(
                "consumer orders has no channel: set mp.messaging.incoming.orders.connector=smallrye-sqs (and its queue)",
                "consumer payments has no InboxHandler bean whose consumer() is \"payments\"",
                "consumer payments has no channel: set mp.messaging.incoming.payments.connector=smallrye-sqs (and its queue)"),
                problems);
    }

    @Test
    void aSwitchedOffConsumerWhoseChannelStillReceivesIsRefused() {
        assertEquals(List.of("consumer notifications is switched off but its channel is not: set"
                + " mp.messaging.incoming.notifications.enabled=false"),
                ConsumerSetupCheck.channelsLeftOn(Set.of("notifications", "archive"), "notifications"::equals));
    }

    @Test
    void aChannelThatWouldDeleteOnItsOwnOrAskForNoAttributesIsRefused() {
        Map<String, String> orders = Map.of("ack-strategy", "ignore", "failure-strategy", "ignore",
                "receive.request.customizer", "txinbox");
        assertEquals(List.of(), ConsumerSetupCheck.channelValues(Set.of("orders"),
                (name, key) -> Optional.ofNullable(orders.get(key))));
        // Only the connector's defaults: it would delete each message itself, and ask for no system attributes.
        assertEquals(List.of(
                "consumer inventory's channel has ack-strategy=delete: set mp.messaging.incoming.inventory.ack-strategy=ignore"
                        + " (settlement deletes a message only after its commit)",
                "consumer inventory's channel has receive.request.customizer=(unset): set"
                        + " mp.messaging.incoming.inventory.receive.request.customizer=txinbox (the inbox reads the"
                        + " group, sequence and receive count it asks for)"),
                ConsumerSetupCheck.channelValues(Set.of("inventory"), (name, key) -> Optional.empty()));
    }
}
