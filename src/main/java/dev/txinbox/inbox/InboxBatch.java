package dev.txinbox.inbox;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jboss.logging.Logger;

import dev.txinbox.ordering.StreamOrdering;
import dev.txinbox.ordering.StreamOrdering.Applied;

/**
 * One pass of a batch through the inbox, inside the batch's transaction:
 * <ol>
 * <li>claim every new event id in one statement, and lock every stream the batch touches in one
 * statement, both in a fixed order, so that concurrent batches never deadlock on them;</li>
 * <li>then, message by message in receive order, each under its own savepoint: the claim of an id seen
 * before (duplicate, conflict, or takeover of a FAILED/DEAD row), the ordering rule, the handler, the
 * drain of parked successors (each under a savepoint of its own), the outcome;</li>
 * <li>a message that throws is rolled back to its savepoint and its claim given back; the later messages
 * of its group in the batch are held back unprocessed, so that none overtakes it;</li>
 * <li>the streams' new positions in one statement.</li>
 * </ol>
 * A failure the savepoint cannot contain (the transaction is doomed) ends the pass with {@link Doomed},
 * naming the message or parked event at fault: the inbox runs the batch again without it.
 */
final class InboxBatch {

    private static final Logger LOG = Logger.getLogger(InboxBatch.class);

    /** A parsed, validated message and its place in the batch. */
    record Entry(int index, IncomingMessage message, InboxEvent event) {

        String group() {
            return message.source().groupId();
        }
    }

    /** The transaction cannot go on: {@link #index} (or parked row {@link #parkedId}) caused it. */
    static final class Doomed extends RuntimeException {

        private final int index;
        private final Long parkedId;

        Doomed(int index, Long parkedId, RuntimeException cause) {
            super(cause.getMessage(), cause, false, false);
            this.index = index;
            this.parkedId = parkedId;
        }

        int index() {
            return index;
        }

        Long parkedId() {
            return parkedId;
        }
    }

    private final InboxHandler handler;
    private final String consumer;
    private final List<Entry> entries;
    private final Map<Integer, RuntimeException> earlierFailures;
    private final InboxRepository repository;
    private final StreamOrdering ordering;
    private final FailurePolicy failurePolicy;
    private final Savepoints savepoints;
    private final StreamOrdering.ParkedApplier applier;

    private final Map<Integer, InboxResult> results = new LinkedHashMap<>();
    private final Map<Integer, RuntimeException> failures = new LinkedHashMap<>();
    /** Group to the message that failed in it: later messages of the group are held back. */
    private final Map<String, String> failedGroups = new HashMap<>();
    private final List<Long> unclaim = new ArrayList<>();
    private Map<String, Long> last;
    private final Map<String, Long> advanced = new HashMap<>();
    private Set<String> withParked;

    InboxBatch(InboxHandler handler, List<Entry> entries, Map<Integer, RuntimeException> earlierFailures,
            Map<Long, String> poisonedParked, InboxRepository repository, StreamOrdering ordering,
            EventParser parser, FailurePolicy failurePolicy, Savepoints savepoints) {
        this.handler = handler;
        this.consumer = handler.consumer();
        this.entries = entries;
        this.earlierFailures = earlierFailures;
        this.repository = repository;
        this.ordering = ordering;
        this.failurePolicy = failurePolicy;
        this.savepoints = savepoints;
        this.applier = parkedApplier(handler, poisonedParked, parser, failurePolicy, savepoints);
    }

    Map<Integer, InboxResult> results() {
        return results;
    }

    /** Messages that failed under their savepoint: their attempts are recorded after the commit. */
    Map<Integer, RuntimeException> failures() {
        return failures;
    }

    void run() {
        Map<String, Entry> firstOfId = new LinkedHashMap<>();
        Set<String> aggregates = new HashSet<>();
        for (Entry entry : entries) {
            if (!earlierFailures.containsKey(entry.index())) {
                firstOfId.putIfAbsent(entry.event().eventId(), entry);
                if (entry.event().ordered()) {
                    aggregates.add(entry.event().aggregateId());
                }
            }
        }
        Map<String, InboxRepository.Claim> fresh = repository.claimNew(consumer, firstOfId.values().stream()
                .map(e -> new InboxRepository.Claimable(e.message(), e.event())).toList());
        last = ordering.lock(consumer, aggregates);
        withParked = new HashSet<>(ordering.withParked(consumer, aggregates));

        for (Entry entry : entries) {
            if (earlierFailures.containsKey(entry.index())) {
                if (entry.group() != null) {
                    failedGroups.putIfAbsent(entry.group(), describe(entry));
                }
                continue;
            }
            InboxRepository.Claim claim = firstOfId.get(entry.event().eventId()) == entry
                    ? fresh.get(entry.event().eventId()) : null;
            String failedBefore = entry.group() == null ? null : failedGroups.get(entry.group());
            if (failedBefore != null) {
                results.put(entry.index(), InboxResult.heldBack(entry.event().eventId(), "held back behind " + failedBefore));
                giveBack(claim);
                continue;
            }
            Entry first = firstOfId.get(entry.event().eventId());
            InboxResult firstResult = results.get(first.index());
            if (first != entry && (firstResult == null || firstResult.outcome() == Outcome.RETRIED)) {
                // A second copy of an event whose first copy did not get through: it waits, like the first.
                results.put(entry.index(), InboxResult.heldBack(entry.event().eventId(),
                        "another copy of this event failed in the same batch"));
                continue;
            }
            process(entry, claim);
        }
        ordering.advance(consumer, advanced);
        repository.unclaim(unclaim);
    }

    private void process(Entry entry, InboxRepository.Claim fresh) {
        savepoints.set("txinbox_message");
        Step step;
        try {
            step = step(entry, fresh);
            savepoints.release("txinbox_message");
        } catch (Doomed doomed) {
            throw doomed;
        } catch (RuntimeException e) {
            if (failurePolicy.isOutage(e) || failurePolicy.isContention(e) || savepoints.transactionDoomed()) {
                throw new Doomed(entry.index(), null, e);
            }
            savepoints.rollbackTo("txinbox_message");
            failures.put(entry.index(), e);
            if (entry.group() != null) {
                failedGroups.put(entry.group(), describe(entry));
            }
            giveBack(fresh);
            LOG.debugf("consumer %s: event %s failed in its batch: %s", consumer, entry.event().eventId(), e);
            return;
        }
        results.put(entry.index(), step.result());
        if (step.reached() != null) {
            last.put(entry.event().aggregateId(), step.reached());
            advanced.put(entry.event().aggregateId(), step.reached());
        }
    }

    /** What one message did: its outcome, and how far its stream got (null: unchanged). */
    private record Step(InboxResult result, Long reached) {
    }

    private Step step(Entry entry, InboxRepository.Claim fresh) {
        InboxEvent event = entry.event();
        InboxRepository.Claim claim = fresh != null ? fresh : repository.claim(entry.message(), event).orElse(null);
        if (claim == null) {
            return new Step(alreadyRecorded(event), null);
        }
        if (!event.ordered()) {
            return new Step(apply(claim, event), null);
        }
        String aggregate = event.aggregateId();
        long lastSequence = last.get(aggregate);
        return switch (ordering.decide(lastSequence, event.sequence())) {
            case STALE -> {
                ordering.stale(claim.id(), lastSequence, event.sequence());
                yield new Step(InboxResult.of(Outcome.STALE, event.eventId(), null), null);
            }
            case PARK -> {
                ordering.park(claim.id(), lastSequence);
                // A parked successor that failed when drained waits at last + 1: each newcomer tries it again.
                long reached = withParked.contains(aggregate)
                        ? ordering.drain(consumer, aggregate, lastSequence, applier) : lastSequence;
                withParked.add(aggregate);
                yield new Step(InboxResult.of(Outcome.PARKED, event.eventId(), "waiting for sequence " + (lastSequence + 1)),
                        reached == lastSequence ? null : reached);
            }
            case APPLY -> {
                InboxResult result = apply(claim, event);
                long reached = withParked.contains(aggregate)
                        ? ordering.drain(consumer, aggregate, event.sequence(), applier) : event.sequence();
                yield new Step(result, reached);
            }
        };
    }

    private InboxResult apply(InboxRepository.Claim claim, InboxEvent event) {
        HandlerResult result = handler.apply(event);
        if (result.applied()) {
            return InboxResult.settled(Outcome.PROCESSED, event.eventId(), null, claim.attempt());
        }
        repository.reject(claim.id(), result.reason());
        return InboxResult.settled(Outcome.REJECTED, event.eventId(), result.reason(), claim.attempt());
    }

    private InboxResult alreadyRecorded(InboxEvent event) {
        InboxRepository.Recorded existing = repository.recorded(consumer, event.eventId())
                .orElseThrow(() -> new IllegalStateException(
                        "event " + event.eventId() + " was claimed by another transaction but its row is gone"));
        if (existing.payloadHash().equals(event.payloadHash())) {
            return InboxResult.of(Outcome.DUPLICATE, event.eventId(), null);
        }
        String detail = "event id " + event.eventId() + " re-sent with a different payload: recorded hash "
                + existing.payloadHash() + ", received hash " + event.payloadHash();
        LOG.warnf("conflict for consumer %s: %s; the recorded entry (%s) is kept", consumer, detail, existing.status());
        return InboxResult.of(Outcome.CONFLICT, event.eventId(), detail);
    }

    private void giveBack(InboxRepository.Claim fresh) {
        if (fresh != null) {
            unclaim.add(fresh.id());
        }
    }

    private static String describe(Entry entry) {
        return "failed message " + entry.message().source().messageId() + " (event " + entry.event().eventId() + ")";
    }

    /**
     * Applies a parked event under a savepoint of its own, so that one that throws is undone alone and the
     * event that filled its gap still commits. One that doomed the transaction before ({@code poisoned})
     * is not tried again in this batch.
     */
    static StreamOrdering.ParkedApplier parkedApplier(InboxHandler handler, Map<Long, String> poisoned,
            EventParser parser, FailurePolicy failurePolicy, Savepoints savepoints) {
        return (parkedId, messageId, body) -> {
            String poison = poisoned.get(parkedId);
            if (poison != null) {
                return new Applied(Applied.Kind.FAILED, poison);
            }
            savepoints.set("txinbox_parked");
            try {
                HandlerResult result;
                try {
                    result = handler.apply(parser.parse(body, messageId));
                } catch (InvalidMessageException e) {
                    result = HandlerResult.rejected("invalid when unparked: " + e.getMessage());
                }
                savepoints.release("txinbox_parked");
                return result.applied() ? new Applied(Applied.Kind.APPLIED, null)
                        : new Applied(Applied.Kind.REJECTED, result.reason());
            } catch (RuntimeException e) {
                if (failurePolicy.isOutage(e) || failurePolicy.isContention(e) || savepoints.transactionDoomed()) {
                    throw new Doomed(-1, parkedId, e);
                }
                savepoints.rollbackTo("txinbox_parked");
                return new Applied(Applied.Kind.FAILED, failurePolicy.describe(e));
            }
        };
    }
}
