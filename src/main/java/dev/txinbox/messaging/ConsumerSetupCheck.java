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
 * Refuses to start with a consumer that could not work, naming every problem at once: a consumer
 * without handler or channel. The values of its settings are checked by their constraints
 * ({@code TxinboxConfig}); missing datasource or SQS settings are reported by Quarkus itself.
 */
@ApplicationScoped
public class ConsumerSetupCheck {

    void check(@Observes @Priority(1) StartupEvent started, TxinboxConfig txinbox, Inbox inbox, Config config) {
        List<String> problems = problems(txinbox.consumers().keySet(), inbox::hasConsumer,
                name -> config.getOptionalValue("mp.messaging.incoming." + name + ".connector", String.class)
                        .filter("smallrye-sqs"::equals).isPresent());
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
}
