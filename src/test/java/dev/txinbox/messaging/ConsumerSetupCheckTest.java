package dev.txinbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
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
}
