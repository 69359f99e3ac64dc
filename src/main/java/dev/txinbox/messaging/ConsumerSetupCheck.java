package dev.txinbox.messaging;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
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
 * without handler or channel, or whose channel's ack, failure or customizer value is not the one the pipeline relies
 * on, a switched-off one whose channel still receives. The values of its settings are checked by their constraints
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
        problems.addAll(channelValues(running, (name, key) -> config.getOptionalValue("mp.messaging.incoming." + name
                + "." + key, String.class)));
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

    /**
     * The channel values txinbox's pipeline relies on, each with its connector default (4.33) and why: the connector's
     * own ack deletes one message per call, as soon as it is handed on, and a failed delete ends the channel; its
     * other failure strategies delete or end the channel; without txinbox's customizer
     * ({@code messaging.sqs.ReceiveRequestCustomizer}) a receive asks for no system attributes (group, sequence,
     * receive count), and liveness cannot see its loop.
     */
    private static final List<ChannelValue> CHANNEL_VALUES = List.of(
            new ChannelValue("ack-strategy", "ignore", "delete", "settlement deletes a message only after its commit"),
            new ChannelValue("failure-strategy", "ignore", "ignore", "settlement decides what a failure leads to"),
            new ChannelValue("receive.request.customizer", "txinbox", "",
                    "the inbox reads the group, sequence and receive count it asks for"));

    /** A channel setting, the value the pipeline needs, the connector's default ("" for none), and why. */
    private record ChannelValue(String key, String required, String connectorDefault, String why) {
    }

    /** Every running consumer's channel value that is not what the pipeline relies on, named with the line to set. */
    static List<String> channelValues(Set<String> consumers, BiFunction<String, String, Optional<String>> channelValue) {
        List<String> problems = new ArrayList<>();
        for (String name : new TreeSet<>(consumers)) {
            for (ChannelValue expected : CHANNEL_VALUES) {
                String value = channelValue.apply(name, expected.key()).orElse(expected.connectorDefault());
                if (!expected.required().equals(value)) {
                    problems.add("consumer " + name + "'s channel has " + expected.key() + "="
                            + (value.isEmpty() ? "(unset)" : value) + ": set mp.messaging.incoming." + name + "."
                            + expected.key() + "=" + expected.required() + " (" + expected.why() + ")");
                }
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
