package dev.txinbox.ops.admin;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import jakarta.enterprise.context.ApplicationScoped;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.inbox.Inbox;
import dev.txinbox.inbox.InboxReadModel;
import dev.txinbox.inbox.InboxResult;
import dev.txinbox.messaging.sqs.SqsQueues;
import dev.txinbox.ordering.StreamOrdering;

/**
 * What an operator can do to the inbox, for both the admin API and the console: the repairs, each written to
 * {@link AdminAudit} with who asked for it, and the consumers they apply to; what operators read is
 * {@link InboxReadModel}'s. Input is validated by the callers (each answers bad input in its own way); this
 * class trusts what it gets.
 */
@ApplicationScoped
public class InboxRepairs {

    /** What a replay did, and the entry's status afterwards. */
    public record Replay(InboxResult result, String statusNow) {
    }

    /** What a failure group's retry did: the group as it was, the entries replayed, and their outcomes by label. */
    public record GroupRetry(InboxReadModel.FailureGroup group, int retried, Map<String, Integer> outcomes) {
    }

    /** The audit names a group retry by its cause, cut to this length. */
    private static final int AUDITED_CAUSE = 200;

    private final Inbox inbox;
    private final InboxReadModel readModel;
    private final TxinboxConfig config;
    private final SqsQueues queues;
    private final AdminAudit audit;

    public InboxRepairs(Inbox inbox, InboxReadModel readModel, TxinboxConfig config, SqsQueues queues,
            AdminAudit audit) {
        this.inbox = inbox;
        this.readModel = readModel;
        this.config = config;
        this.queues = queues;
        this.audit = audit;
    }

    /** The configured consumers, by name. */
    public Set<String> consumerNames() {
        return new TreeSet<>(config.runningConsumers().keySet());
    }

    /** A consumer that is configured and has a handler. */
    public Optional<TxinboxConfig.Consumer> consumer(String consumer) {
        TxinboxConfig.Consumer settings = config.runningConsumers().get(consumer);
        return settings != null && inbox.hasConsumer(consumer) ? Optional.of(settings) : Optional.empty();
    }

    /**
     * Runs an entry's stored body through the inbox again (see {@link Inbox#replay}); empty when the consumer
     * has no such entry. The consumer must exist ({@link #consumer}).
     */
    public Optional<Replay> replay(String actor, String consumer, String messageId) {
        TxinboxConfig.Consumer settings = consumer(consumer).orElseThrow();
        return inbox.replay(consumer, messageId, settings.retry()).map(result -> {
            String statusNow = readModel.status(consumer, messageId).orElse(null);
            audit.record(actor, "replay", consumer, messageId, result.outcome().label(), result.detail());
            return new Replay(result, statusNow);
        });
    }

    /**
     * Replays the entries of a consumer's failure group, the oldest first, at most {@code max} (the rest wait for
     * the next retry); each replay is audited as one, and the retry as a whole. Empty when the consumer has no
     * failed or dead entry with that cause any more.
     */
    public Optional<GroupRetry> retryGroup(String actor, String consumer, String groupId, int max) {
        Optional<InboxReadModel.FailureGroup> group = readModel.failureGroup(consumer, groupId);
        if (group.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Integer> outcomes = new TreeMap<>();
        int retried = 0;
        for (InboxReadModel.FailureMember member : readModel.failureMembers(consumer, groupId, max)) {
            Optional<Replay> replay = replay(actor, consumer, member.messageId());
            if (replay.isPresent()) {
                retried++;
                outcomes.merge(replay.get().result().outcome().label(), 1, Integer::sum);
            }
        }
        String cause = group.get().cause();
        audit.record(actor, "retry-group", consumer,
                cause.length() <= AUDITED_CAUSE ? cause : cause.substring(0, AUDITED_CAUSE) + "…",
                "retried " + retried, "outcomes " + outcomes);
        return Optional.of(new GroupRetry(group.get(), retried, outcomes));
    }

    /**
     * Moves up to {@code max} messages from the consumer's dead-letter queue back to its source queue; returns
     * how many moved. A failure is audited, then thrown.
     */
    public int redrive(String actor, String consumer, int max) {
        TxinboxConfig.Consumer settings = consumer(consumer).orElseThrow();
        int moved;
        try {
            moved = queues.redrive(settings.dlq(), settings.queue(), max);
        } catch (RuntimeException e) {
            audit.record(actor, "redrive", consumer, settings.dlq(), "failed", e.getMessage());
            throw e;
        }
        audit.record(actor, "redrive", consumer, settings.dlq(), "moved " + moved, "to " + settings.queue());
        return moved;
    }

    /** Messages in the consumer's dead-letter queue now (SQS's approximate count). */
    public long deadLetterDepth(String consumer) {
        return queues.depth(consumer(consumer).orElseThrow().dlq()).total();
    }

    /** Gives up on a stream's gap (see {@link Inbox#releaseGap}); empty when nothing of it is parked. */
    public Optional<StreamOrdering.GapRelease> release(String actor, String consumer, String aggregateId) {
        consumer(consumer).orElseThrow();
        Optional<StreamOrdering.GapRelease> release = inbox.releaseGap(consumer, aggregateId);
        release.ifPresentOrElse(
                r -> audit.record(actor, "release", consumer, aggregateId, "released",
                        "skipped sequences " + r.skippedFrom() + ".." + r.skippedTo() + ", now at " + r.lastAfter()),
                () -> audit.record(actor, "release", consumer, aggregateId, "nothing parked", null));
        return release;
    }
}
