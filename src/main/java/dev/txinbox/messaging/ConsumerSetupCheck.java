package dev.txinbox.messaging;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.Config;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.inbox.Inbox;
import io.quarkus.runtime.StartupEvent;

/**
 * Refuses to start with a consumer that could not work, naming every problem at once: a running consumer
 * without handler or channel, a switched-off one whose channel still receives. The values of its settings are checked by their constraints
 * ({@code TxinboxConfig}); missing datasource or SQS settings are reported by Quarkus itself.
 */
@ApplicationScoped
public class ConsumerSetupCheck {

    void check(@Observes @Priority(1) StartupEvent started, TxinboxConfig txinbox, Inbox inbox, Config config) {
        Set<String> running = txinbox.runningConsumers().keySet();
        Set<String> switchedOff = new TreeSet<>(txinbox.consumers().keySet());
        switchedOff.removeAll(running);
        List<String> problems = problems(running, inbox::hasConsumer,
                name -> config.getOptionalValue("mp.messaging.incoming." + name + ".connector", String.class)
                        .filter("smallrye-sqs"::equals).isPresent());
        problems.addAll(channelsLeftOn(switchedOff,
                name -> config.getOptionalValue("mp.messaging.incoming." + name + ".enabled", Boolean.class).orElse(true)));
        if (!problems.isEmpty()) {
            throw new IllegalStateException("txinbox cannot start:\n - " + String.join("\n - ", problems));
        }
    }

    static List<String> problems(Set<String> consumers, Predicate<String> hasHandler, Predicate<String> hasChannel) {
        List<String> problems = new ArrayList<>();
        for (String name : new TreeSet<>(consumers)) {
            if (!hasHandler.test(name)) {
                problems.add("consumer " + name + " has no InboxHandler bean whose consumer() is \"" + name + "\"");
            }
            if (!hasChannel.test(name)) {
                problems.add("consumer " + name + " has no channel: set mp.messaging.incoming." + name
                        + ".connector=smallrye-sqs (and its queue)");
            }
        }
        return problems;
    }

    /** A channel left on would hand messages to a consumer nothing is set up for, and none would be deleted. */
    static List<String> channelsLeftOn(Set<String> switchedOff, Predicate<String> channelEnabled) {
        List<String> problems = new ArrayList<>();
        for (String name : new TreeSet<>(switchedOff)) {
            if (channelEnabled.test(name)) {
                problems.add("consumer " + name + " is switched off but its channel is not: set"
                        + " mp.messaging.incoming." + name + ".enabled=false");
            }
        }
        return problems;
    }
}
