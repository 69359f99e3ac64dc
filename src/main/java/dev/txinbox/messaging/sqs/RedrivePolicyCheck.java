package dev.txinbox.messaging.sqs;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import dev.txinbox.config.TxinboxConfig;
import io.quarkus.runtime.StartupEvent;

/**
 * SQS's own redrive policy moves a message to the queue's DLQ after {@code maxReceiveCount} receives,
 * without txinbox's reason and without recording it DEAD. txinbox must get there first: a message is
 * also received without an attempt being counted (held back behind a failed one, caught by an outage,
 * redelivered after a crash), so the count must stand well above {@code retry.max-attempts}. Checked at
 * start, in the background (SQS may be slow to answer), and reported as an ERROR naming both numbers,
 * the way the retention check reports a queue that outlives the inbox.
 */
@ApplicationScoped
public class RedrivePolicyCheck {

    private static final Logger LOG = Logger.getLogger(RedrivePolicyCheck.class);

    /** Receives allowed per attempt: one for the attempt, one for a hold-back or an outage on the way. */
    static final int RECEIVES_PER_ATTEMPT = 2;

    void check(@Observes StartupEvent started, TxinboxConfig config, SqsQueues queues) {
        CompletableFuture.runAsync(() -> config.runningConsumers().forEach((consumer, settings) -> {
            try {
                problem(consumer, settings.queue(), queues.maxReceiveCount(settings.queue()),
                        settings.retry().maxAttempts()).ifPresent(LOG::error);
            } catch (RuntimeException e) {
                LOG.warnf("could not read queue %s's redrive policy: %s", settings.queue(), e.getMessage());
            }
        }));
    }

    /** What is wrong with a queue's maxReceiveCount for {@code maxAttempts} attempts, if anything. */
    static Optional<String> problem(String consumer, String queue, Optional<Integer> maxReceiveCount, int maxAttempts) {
        if (maxReceiveCount.isEmpty()) {
            return Optional.empty(); // SQS never moves the message: txinbox's own dead-lettering is all there is
        }
        int needed = maxAttempts * RECEIVES_PER_ATTEMPT;
        if (maxReceiveCount.get() >= needed) {
            return Optional.empty();
        }
        return Optional.of(String.format("REDRIVE POLICY TOO TIGHT for consumer %s: queue %s moves a message to its"
                + " dead-letter queue after %d receives, but txinbox retries up to %d attempts"
                + " (txinbox.consumers.%s.retry.max-attempts) and receives a message without counting an attempt too;"
                + " SQS would dead-letter messages without txinbox's reason or DEAD record. Set the queue's"
                + " maxReceiveCount to %d or more, or lower max-attempts.", consumer, queue, maxReceiveCount.get(),
                maxAttempts, consumer, needed));
    }
}
