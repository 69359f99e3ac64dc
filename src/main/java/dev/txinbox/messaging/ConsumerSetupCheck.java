package dev.txinbox.messaging;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.Config;

import dev.txinbox.inbox.Inbox;
import io.quarkus.runtime.StartupEvent;

/**
 * Refuses to start with a consumer set-up that could not work, naming every problem at once: a
 * consumer without handler or channel, missing queue names, impossible retry or parallelism settings.
 * (Missing datasource or SQS settings are reported by Quarkus itself.)
 */
@ApplicationScoped
public class ConsumerSetupCheck {

    void check(@Observes @Priority(1) StartupEvent started, ConsumersConfig consumers, Inbox inbox, Config config) {
        List<String> problems = problems(consumers.consumers(), inbox::hasConsumer,
                name -> config.getOptionalValue("mp.messaging.incoming." + name + ".connector", String.class)
                        .filter("smallrye-sqs"::equals).isPresent());
        if (!problems.isEmpty()) {
            throw new IllegalStateException("txinbox cannot start:\n - " + String.join("\n - ", problems));
        }
    }

    static List<String> problems(Map<String, ConsumersConfig.Consumer> consumers, Predicate<String> hasHandler,
            Predicate<String> hasChannel) {
        List<String> problems = new ArrayList<>();
        if (consumers.isEmpty()) {
            problems.add("no consumer is configured (txinbox.consumers.<name>.queue and .dlq)");
        }
        for (Map.Entry<String, ConsumersConfig.Consumer> entry : consumers.entrySet()) {
            String name = entry.getKey();
            ConsumersConfig.Consumer consumer = entry.getValue();
            String at = "txinbox.consumers." + name + ".";
            if (!hasHandler.test(name)) {
                problems.add("consumer " + name + " has no InboxHandler bean whose consumer() is \"" + name + "\"");
            }
            if (!hasChannel.test(name)) {
                problems.add("consumer " + name + " has no channel: set mp.messaging.incoming." + name
                        + ".connector=smallrye-sqs (and its queue)");
            }
            if (consumer.queue().isBlank()) {
                problems.add(at + "queue is blank");
            }
            if (consumer.dlq().isBlank() || consumer.dlq().equals(consumer.queue())) {
                problems.add(at + "dlq must name a dead-letter queue other than the source queue");
            } else if (consumer.queue().endsWith(".fifo") != consumer.dlq().endsWith(".fifo")) {
                problems.add(at + "dlq must be a FIFO queue exactly when the source queue is one");
            }
            if (consumer.parallelism() < 1) {
                problems.add(at + "parallelism must be at least 1, got " + consumer.parallelism());
            }
            if (consumer.batchSize() < 1 || consumer.batchSize() > 1000) {
                problems.add(at + "batch-size must be 1 to 1000, got " + consumer.batchSize());
            }
            if (consumer.maxInFlight() < consumer.parallelism()) {
                problems.add(at + "max-in-flight (" + consumer.maxInFlight() + ") must be at least parallelism ("
                        + consumer.parallelism() + ")");
            }
            if (consumer.visibilityTimeout().isNegative() || consumer.visibilityTimeout().isZero()) {
                problems.add(at + "visibility-timeout must be positive");
            }
            try {
                consumer.retrySettings();
            } catch (IllegalArgumentException e) {
                problems.add(at + "retry: " + e.getMessage());
            }
        }
        return problems;
    }
}
