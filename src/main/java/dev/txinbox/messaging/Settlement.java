package dev.txinbox.messaging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.inbox.DeadLetter;
import dev.txinbox.inbox.FailurePolicy;
import dev.txinbox.inbox.InboxResult;
import dev.txinbox.inbox.LogContext;
import dev.txinbox.inbox.Outcome;
import dev.txinbox.inbox.TraceParent;
import io.quarkus.scheduler.Scheduled;

/**
 * What happens to a delivery once the inbox has committed its outcome, in one place:
 * <ul>
 * <li>a final outcome: delete, in one call for the whole batch (on SQS, DeleteMessageBatch, ten per call);</li>
 * <li>{@code retried}: hold its group ({@link GroupFence}) and release it after its backoff; a message
 * held back behind a failed one of its group is released at once (on SQS, ChangeMessageVisibilityBatch);</li>
 * <li>{@code dead_lettered}: copy to the dead-letter queue, record DEAD (the row the inbox prepared,
 * {@link DeadLetter}), then delete; if the copy fails the message is retried instead, so nothing leaves the
 * queue without a copy.</li>
 * </ul>
 * The calls themselves are the transport's ({@link DeliverySettlement}), sent without waiting for the answer. A
 * delete refused for a reason that passes is the transport's to try again; one refused for good, or a refused
 * release, is counted and logged (once a minute per distinct problem, {@link RepeatedWarnings}), never thrown: the
 * message simply comes back, and the inbox knows it then.
 */
@ApplicationScoped
public class Settlement {

    private static final Logger LOG = Logger.getLogger(Settlement.class);

    private final DeliverySettlement calls;
    private final GroupFence fence;
    private final DatabaseGate databaseGate;
    private final FailurePolicy failurePolicy;
    private final InboxMetrics metrics;
    private final RepeatedWarnings warnings = new RepeatedWarnings(LOG, Duration.ofMinutes(1), System::nanoTime);

    public Settlement(DeliverySettlement calls, GroupFence fence, DatabaseGate databaseGate, FailurePolicy failurePolicy,
            InboxMetrics metrics) {
        this.calls = calls;
        this.fence = fence;
        this.databaseGate = databaseGate;
        this.failurePolicy = failurePolicy;
        this.metrics = metrics;
    }

    /**
     * Settles a committed batch with the transport; gives each item its final outcome. {@code committedAtNanos}
     * starts the settlement stage, which ends when the transport answers. Each item's trace is for its log lines
     * (consumer, event id, message id and trace id in the MDC).
     */
    void settle(String consumer, TxinboxConfig.Consumer settings, List<BatchItem> items, long committedAtNanos) {
        List<Delivery> deletes = new ArrayList<>();
        List<Delivery> heldBack = new ArrayList<>();
        Map<Duration, List<Delivery>> retries = new LinkedHashMap<>();
        try {
            for (BatchItem item : items) {
                item.outcome = settleOne(consumer, settings, item.delivery, item.result, item.traced, deletes,
                        heldBack, retries);
            }
        } finally {
            LogContext.clear();
        }
        calls.delete(deletes, settings.visibilityTimeout(), new Reply(consumer, "delete", committedAtNanos));
        calls.release(heldBack, Duration.ZERO, new Reply(consumer, "release", committedAtNanos));
        retries.forEach((delay, batch) -> calls.release(batch, delay, new Reply(consumer, "release", committedAtNanos)));
    }

    /** The counts of refusals not logged one by one, once their minute is over. */
    @Scheduled(every = "10s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void sayRepeatedWarnings() {
        warnings.sayUnsaid();
    }

    /** Sorts one message into the calls that settle it; returns its final outcome. */
    private Outcome settleOne(String consumer, TxinboxConfig.Consumer settings, Delivery delivery, InboxResult result,
            MessageSpan traced, List<Delivery> deletes, List<Delivery> heldBack,
            Map<Duration, List<Delivery>> retries) {
        if (logsAbout(result.outcome())) {
            MessageTracing.putMdc(consumer, delivery, result.eventId() != null ? result.eventId()
                    : delivery.eventIdAttribute(), traced);
        }
        if (result.outcome() == Outcome.DEAD_LETTERED) {
            result = deadLetter(consumer, settings, delivery, result);
        }
        switch (result.outcome()) {
            case RETRIED -> {
                if (result.heldBack()) {
                    heldBack.add(delivery);
                    metrics.heldBack(consumer);
                    LOG.debugf("consumer %s: message %s %s", consumer, delivery.messageId(), result.detail());
                } else {
                    Duration delay = retryDelay(consumer, settings, delivery, result);
                    retries.computeIfAbsent(delay, d -> new ArrayList<>()).add(delivery);
                }
            }
            case REJECTED -> {
                LOG.infof("consumer %s: event %s rejected: %s", consumer, result.eventId(), result.detail());
                deletes.add(delivery);
            }
            default -> deletes.add(delivery);
        }
        return result.outcome();
    }

    /** Whether settling this outcome may log a line about the message (the common outcomes log none at INFO). */
    private static boolean logsAbout(Outcome outcome) {
        return switch (outcome) {
            case PROCESSED, DUPLICATE, STALE, PARKED -> LOG.isDebugEnabled();
            default -> true;
        };
    }

    /** Holds the group of a message that will be retried and says when it should come back. */
    private Duration retryDelay(String consumer, TxinboxConfig.Consumer settings, Delivery delivery,
            InboxResult result) {
        Duration delay = result.retryDelay() != null ? result.retryDelay() : FailurePolicy.OUTAGE_DELAY;
        if (result.outage()) {
            databaseGate.close(result.detail());
        } else {
            LOG.warnf("consumer %s: message %s (event %s) %s, retrying in %d s: %s", consumer, delivery.messageId(),
                    result.eventId(), result.attempts() > 0 ? "failed on attempt " + result.attempts() : "was not settled",
                    delay.toSeconds(), result.detail());
        }
        fence.hold(consumer, delivery, delay, settings.visibilityTimeout());
        return delay;
    }

    /**
     * Copy first, then record, then delete: nothing leaves the queue without a copy in the DLQ, and no DEAD row
     * stands for a message the DLQ has not taken. Returns the result to settle with: dead-lettered, or a retry
     * when the copy or the record failed.
     */
    private InboxResult deadLetter(String consumer, TxinboxConfig.Consumer settings, Delivery delivery,
            InboxResult result) {
        DeadLetter letter = result.deadLetter();
        try {
            calls.copyToDeadLetterQueue(settings.dlq(), consumer, delivery, letter.reason(), result.detail(),
                    Math.max(result.attempts(), 1));
            letter.record();
        } catch (RuntimeException e) {
            String error = "dead-lettering failed (" + failurePolicy.describe(e) + ") for: " + result.detail();
            return failurePolicy.isOutage(e) ? InboxResult.outage(result.eventId(), error, FailurePolicy.OUTAGE_DELAY)
                    : InboxResult.retry(result.eventId(), error, result.attempts(), FailurePolicy.OUTAGE_DELAY);
        }
        LOG.warnf("consumer %s: message %s (event %s) dead-lettered to %s, %s: %s", consumer, delivery.messageId(),
                result.eventId(), settings.dlq(), letter.reason(), result.detail());
        return result;
    }

    /** The transport's answer to a delete or release: the settlement stage timed from the commit, a refusal counted. */
    private final class Reply implements DeliverySettlement.Reply {

        private final String consumer;
        private final String what;
        /** {@link System#nanoTime} of the commit. */
        private final long since;

        Reply(String consumer, String what, long since) {
            this.consumer = consumer;
            this.what = what;
            this.since = since;
        }

        @Override
        public void answered(int messages) {
            metrics.stage(consumer, InboxMetrics.Stage.SETTLEMENT, System.nanoTime() - since, messages);
        }

        @Override
        public void refused(Delivery delivery, String why) {
            metrics.ackFailed(consumer);
            // On the SDK's callback thread: the message's identity is put here, for the line if it is said.
            try (LogContext ignored = LogContext.of(consumer, delivery.eventIdAttribute(), delivery.messageId(),
                    TraceParent.traceId(delivery.traceparent()))) {
                warnings.warn(RepeatedWarnings.problem("could not " + what + " messages of consumer " + consumer
                        + " in " + delivery.queue() + " (" + why + ")"), "could not " + what + " message "
                        + delivery.messageId() + " in " + delivery.queue() + " (" + why + "); it comes back after its"
                        + " visibility timeout and is recognised then");
            }
        }

        @Override
        public void retrying(String queue, int messages, String why) {
            warnings.warn(RepeatedWarnings.problem("SQS refuses to " + what + " messages of consumer " + consumer
                    + " in " + queue + " (" + why + "); trying again"), "SQS refused to " + what + " " + messages
                    + " messages of consumer " + consumer + " in " + queue + " (" + why + "); trying again, their"
                    + " visibility extended meanwhile");
        }
    }
}
