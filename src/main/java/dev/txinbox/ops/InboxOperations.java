package dev.txinbox.ops;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import jakarta.enterprise.context.ApplicationScoped;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.inbox.Inbox;
import dev.txinbox.inbox.InboxAttempt;
import dev.txinbox.inbox.InboxMessage;
import dev.txinbox.inbox.InboxRepository;
import dev.txinbox.inbox.InboxResult;
import dev.txinbox.inbox.InboxStatus;
import dev.txinbox.messaging.SqsQueues;
import dev.txinbox.ordering.StreamOrdering;
import io.quarkus.narayana.jta.QuarkusTransaction;

/**
 * What an operator can look at and do, for both the admin API and the console: the queries behind their
 * lists and the repairs, each repair written to {@link AdminAudit} with who asked for it. Input is
 * validated by the callers (each answers bad input in its own way); this class trusts what it gets.
 */
@ApplicationScoped
public class InboxOperations {

    /** Which entries to list; null fields do not filter, an empty status set neither. */
    public record EntryFilter(Set<InboxStatus> statuses, String consumer, String aggregateId, Instant from, Instant to) {
    }

    /** A page of entries, newest first. */
    public record EntryPage(List<InboxMessage> items, int page, int size, boolean hasMore) {
    }

    /** An entry with its attempt history, first attempt first. */
    public record EntryDetail(InboxMessage entry, List<InboxAttempt> attempts) {
    }

    /** What a replay did, and the entry's status afterwards. */
    public record Replay(InboxResult result, String statusNow) {
    }

    private final Inbox inbox;
    private final InboxRepository repository;
    private final TxinboxConfig config;
    private final SqsQueues queues;
    private final AdminAudit audit;

    public InboxOperations(Inbox inbox, InboxRepository repository, TxinboxConfig config, SqsQueues queues,
            AdminAudit audit) {
        this.inbox = inbox;
        this.repository = repository;
        this.config = config;
        this.queues = queues;
        this.audit = audit;
    }

    /** The configured consumers, by name. */
    public Set<String> consumerNames() {
        return new java.util.TreeSet<>(config.consumers().keySet());
    }

    /** A consumer that is configured and has a handler. */
    public Optional<TxinboxConfig.Consumer> consumer(String consumer) {
        TxinboxConfig.Consumer settings = config.consumers().get(consumer);
        return settings != null && inbox.hasConsumer(consumer) ? Optional.of(settings) : Optional.empty();
    }

    /** Entries by consumer and status, for every configured consumer that has any. */
    public Map<String, Map<String, Long>> countsByStatus() {
        Map<String, Map<String, Long>> counts = new TreeMap<>();
        List<Object[]> rows = QuarkusTransaction.requiringNew().call(() -> repository.getEntityManager()
                .createQuery("select m.consumerName, m.status, count(m) from InboxMessage m group by 1, 2", Object[].class)
                .getResultList());
        for (Object[] row : rows) {
            counts.computeIfAbsent((String) row[0], c -> new TreeMap<>()).put(row[1].toString(), (Long) row[2]);
        }
        return counts;
    }

    public EntryPage entries(EntryFilter filter, int page, int size) {
        StringBuilder where = new StringBuilder("1 = 1");
        Map<String, Object> parameters = new HashMap<>();
        if (filter.statuses() != null && !filter.statuses().isEmpty()) {
            where.append(" and status in :statuses");
            parameters.put("statuses", filter.statuses());
        }
        if (filter.consumer() != null) {
            where.append(" and consumerName = :consumer");
            parameters.put("consumer", filter.consumer());
        }
        if (filter.aggregateId() != null) {
            where.append(" and aggregateId = :aggregate");
            parameters.put("aggregate", filter.aggregateId());
        }
        if (filter.from() != null) {
            where.append(" and receivedAt >= :from");
            parameters.put("from", filter.from());
        }
        if (filter.to() != null) {
            where.append(" and receivedAt < :to");
            parameters.put("to", filter.to());
        }
        // One row more than asked for says whether there is a next page.
        List<InboxMessage> found = QuarkusTransaction.requiringNew().call(() -> repository
                .find(where + " order by id desc", parameters).range(page * size, page * size + size).list());
        return new EntryPage(found.subList(0, Math.min(size, found.size())), page, size, found.size() > size);
    }

    public Optional<EntryDetail> entry(String consumer, String messageId) {
        return QuarkusTransaction.requiringNew().call(() -> repository.findEntry(consumer, messageId)
                .map(entry -> new EntryDetail(entry, InboxAttempt
                        .<InboxAttempt> list("consumerName = ?1 and messageId = ?2 order by attempt", consumer, messageId))));
    }

    /**
     * Runs an entry's stored body through the inbox again (see {@link Inbox#replay}); empty when the consumer
     * has no such entry. The consumer must exist ({@link #consumer}).
     */
    public Optional<Replay> replay(String actor, String consumer, String messageId) {
        TxinboxConfig.Consumer settings = consumer(consumer).orElseThrow();
        return inbox.replay(consumer, messageId, settings.retry()).map(result -> {
            String statusNow = QuarkusTransaction.requiringNew().call(() -> repository.findEntry(consumer, messageId)
                    .map(e -> e.status.name()).orElse(null));
            audit.record(actor, "replay", consumer, messageId, result.outcome().label(), result.detail());
            return new Replay(result, statusNow);
        });
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
