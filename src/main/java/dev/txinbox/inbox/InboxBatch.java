package dev.txinbox.inbox;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import jakarta.persistence.EntityManager;

import org.jboss.logging.Logger;

import dev.txinbox.inbox.FailureDecision.Mode;
import dev.txinbox.inbox.FailureDecision.Place;
import dev.txinbox.ordering.OrderingRule;
import dev.txinbox.ordering.ParkedRun;
import dev.txinbox.ordering.ParkedRun.Applied;
import dev.txinbox.ordering.ParkedRun.Parked;
import dev.txinbox.ordering.StreamOrdering;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;

/**
 * One pass of a batch through the inbox, inside the batch's transaction, with no savepoint:
 * <ol>
 * <li>claim every new event id in one statement, look up the ids seen before in one more, lock every stream
 * the batch touches in one statement (claims and locks in a fixed order, so that concurrent batches never
 * deadlock on them), and let the handler load what the batch needs ({@link InboxHandler#prefetch});</li>
 * <li>then, message by message in receive order: duplicate or conflict, the ordering rule, the handler, the
 * drain of parked successors; each outcome and each row's state is kept in memory;</li>
 * <li>the handlers' writes are flushed once ({@link Mode#FAST}), the rows' states written in one statement,
 * the streams' new positions in one more.</li>
 * </ol>
 * Anything that throws ends the pass with {@link Failed}, naming where it happened; the transaction rolls back
 * and {@link Inbox} decides how the batch goes on ({@link FailureDecision}). Messages that failed in an earlier
 * pass of the batch take no part: their groups' later messages are held back.
 */
final class InboxBatch {

    private static final Logger LOG = Logger.getLogger(InboxBatch.class);

    /** A parsed, validated message and its place in the batch. */
    record Entry(int index, IncomingMessage message, InboxEvent event) {

        String group() {
            return message.source().groupId();
        }
    }

    /** The pass failed at {@link #place}: in message {@link #index}, or applying parked event {@link #parkedEvent}. */
    static final class Failed extends RuntimeException {

        private final Place place;
        private final int index;
        private final String parkedEvent;

        Failed(Place place, int index, String parkedEvent, Throwable cause) {
            super(cause.getMessage(), cause, false, false);
            this.place = place;
            this.index = index;
            this.parkedEvent = parkedEvent;
        }

        Place place() {
            return place;
        }

        int index() {
            return index;
        }

        String parkedEvent() {
            return parkedEvent;
        }
    }

    private final InboxHandler handler;
    private final String consumer;
    private final Mode mode;
    private final List<Entry> entries;
    private final Map<Integer, RuntimeException> failedBefore;
    private final Map<String, String> poisonedParked;
    private final InboxRepository repository;
    private final StreamOrdering ordering;
    private final EventParser parser;
    private final EntityManager entityManager;
    private final List<PendingWrites> pendingWrites;

    private final Map<Integer, InboxResult> results = new LinkedHashMap<>();
    private final HeldGroups held = new HeldGroups();
    private final RowStates states = new RowStates();
    private final List<Long> unclaim = new ArrayList<>();
    private Map<String, Long> last;
    private Set<String> withParked;
    private final Map<String, ParkedRun> runs = new HashMap<>();
    /** Events parked by this pass, by row: a drain in the same pass applies them without parsing their body again. */
    private final Map<Long, InboxEvent> parkedHere = new HashMap<>();
    private final Map<String, Long> advanced = new HashMap<>();

    InboxBatch(Mode mode, InboxHandler handler, List<Entry> entries, Map<Integer, RuntimeException> failedBefore,
            Map<String, String> poisonedParked, InboxRepository repository, StreamOrdering ordering, EventParser parser,
            EntityManager entityManager, List<PendingWrites> pendingWrites) {
        this.mode = mode;
        this.handler = handler;
        this.consumer = handler.consumer();
        this.entries = entries;
        this.failedBefore = failedBefore;
        this.poisonedParked = poisonedParked;
        this.repository = repository;
        this.ordering = ordering;
        this.parser = parser;
        this.entityManager = entityManager;
        this.pendingWrites = pendingWrites;
    }

    Map<Integer, InboxResult> results() {
        return results;
    }

    void run() {
        Map<String, Entry> firstOfId = new LinkedHashMap<>();
        Set<String> aggregates = new HashSet<>();
        List<InboxEvent> events = new ArrayList<>();
        for (Entry entry : entries) {
            if (!failedBefore.containsKey(entry.index()) && firstOfId.putIfAbsent(entry.event().eventId(), entry) == null) {
                events.add(entry.event());
                if (entry.event().ordered()) {
                    aggregates.add(entry.event().aggregateId());
                }
            }
        }
        Map<String, InboxRepository.Claim> fresh;
        Map<String, InboxRepository.Recorded> seenBefore;
        try {
            fresh = repository.claimNew(consumer, firstOfId.values().stream()
                    .map(e -> new InboxRepository.Claimable(e.message(), e.event())).toList());
            seenBefore = repository.recorded(consumer,
                    firstOfId.keySet().stream().filter(id -> !fresh.containsKey(id)).toList());
            last = ordering.lock(consumer, aggregates);
            withParked = repository.streamsWithParked(consumer, aggregates);
        } catch (RuntimeException e) {
            throw new Failed(Place.BATCH, -1, null, e);
        }
        prefetch(events);

        for (Entry entry : entries) {
            if (failedBefore.containsKey(entry.index())) {
                held.hold(entry.group(), describe(entry));
                continue;
            }
            Entry first = firstOfId.get(entry.event().eventId());
            InboxRepository.Claim claim = first == entry ? fresh.get(entry.event().eventId()) : null;
            if (held.holds(entry.group())) {
                results.put(entry.index(), held.heldBack(entry.event().eventId(), entry.group()));
                giveBack(claim);
                continue;
            }
            InboxResult firstResult = results.get(first.index());
            if (first != entry && (firstResult == null || firstResult.outcome() == Outcome.RETRIED)) {
                // A second copy of an event whose first copy did not get through: it waits, like the first.
                results.put(entry.index(), InboxResult.heldBack(entry.event().eventId(),
                        "another copy of this event did not get through in the same batch"));
                continue;
            }
            try (Scope scope = traced(entry)) {
                process(entry, claim, seenBefore.get(entry.event().eventId()));
            } catch (Failed failed) {
                throw failed;
            } catch (RuntimeException e) {
                throw new Failed(Place.MESSAGE, entry.index(), null, e);
            }
        }
        try {
            flush();
            // The context is flushed: without it, the commit's flush has nothing to check.
            entityManager.clear();
            repository.write(states.all());
            ordering.advance(consumer, advanced);
            repository.unclaim(unclaim);
        } catch (RuntimeException e) {
            throw new Failed(Place.BATCH, -1, null, e);
        }
    }

    /** Lets the handler load what the batch needs; a failure there is the batch's, not a message's. */
    private void prefetch(List<InboxEvent> events) {
        try {
            handler.prefetch(events);
        } catch (RuntimeException e) {
            throw new Failed(Place.BATCH, -1, null, e);
        }
    }

    private void process(Entry entry, InboxRepository.Claim fresh, InboxRepository.Recorded recorded) {
        InboxEvent event = entry.event();
        InboxRepository.Claim claim = fresh;
        if (claim == null) {
            if (recorded != null && !recorded.claimable()) {
                results.put(entry.index(), alreadyRecorded(event, recorded));
                return;
            }
            // A FAILED or DEAD row never took effect: this copy takes it over (or finds that another just did).
            claim = repository.claim(entry.message(), event).orElse(null);
            if (claim == null) {
                results.put(entry.index(), alreadyRecorded(event, repository.recorded(consumer,
                        List.of(event.eventId())).get(event.eventId())));
                return;
            }
        }
        if (!event.ordered()) {
            results.put(entry.index(), apply(claim, event, entry.index()));
            return;
        }
        String aggregate = event.aggregateId();
        long lastSequence = last.get(aggregate);
        switch (ordering.decide(lastSequence, event.sequence())) {
            case STALE -> {
                states.finish(claim.id(), InboxStatus.STALE, OrderingRule.staleReason(lastSequence, event.sequence()));
                results.put(entry.index(), InboxResult.of(Outcome.STALE, event.eventId(), null));
            }
            case PARK -> {
                String why = OrderingRule.parkedReason(lastSequence);
                states.park(claim.id(), why);
                results.put(entry.index(), InboxResult.of(Outcome.PARKED, event.eventId(), why));
                // A parked successor that failed when drained waits at last + 1: each newcomer tries it again.
                boolean drainable = withParked.contains(aggregate);
                run(aggregate).add(new Parked(claim.id(), event.eventId(), event.sequence(), event.body(),
                        entry.message().source().traceparent()));
                parkedHere.put(claim.id(), event);
                withParked.add(aggregate);
                if (drainable) {
                    reached(aggregate, drain(aggregate, lastSequence));
                }
            }
            case APPLY -> {
                results.put(entry.index(), apply(claim, event, entry.index()));
                reached(aggregate, withParked.contains(aggregate) ? drain(aggregate, event.sequence()) : event.sequence());
            }
        }
    }

    private void reached(String aggregate, long sequence) {
        if (sequence != last.get(aggregate)) {
            last.put(aggregate, sequence);
            advanced.put(aggregate, sequence);
        }
    }

    private InboxResult apply(InboxRepository.Claim claim, InboxEvent event, int index) {
        HandlerResult result = handler.apply(event);
        if (mode == Mode.LOCATING) {
            flush();
        }
        if (result.applied()) {
            return InboxResult.settled(Outcome.PROCESSED, event.eventId(), null, claim.attempt());
        }
        states.finish(claim.id(), InboxStatus.REJECTED, result.reason());
        return InboxResult.settled(Outcome.REJECTED, event.eventId(), result.reason(), claim.attempt());
    }

    /**
     * The message's trace context made current while it is processed, when it has one: what the handler records in
     * the outbox then continues the message's trace, and so does what a parked run it lets drain records. Null (no
     * scope to close) for an untraced message.
     */
    private static Scope traced(Entry entry) {
        Context trace = entry.message().trace();
        return trace == null ? null : trace.makeCurrent();
    }

    /** The stream's parked events: those of earlier transactions are read once per pass, then kept here. */
    private ParkedRun run(String aggregate) {
        return runs.computeIfAbsent(aggregate, a -> new ParkedRun(withParked.contains(a)
                ? repository.parked(consumer, a) : List.of()));
    }

    private long drain(String aggregate, long from) {
        ParkedRun.Drain drain = run(aggregate).drain(from);
        for (Parked next = drain.next(); next != null; next = drain.next()) {
            drain.settle(applyParked(next));
        }
        for (ParkedRun.Settled settled : drain.settled()) {
            states.settled(settled);
            if (settled.applied().kind() == Applied.Kind.FAILED) {
                Parked parked = settled.parked();
                try (LogContext ignored = LogContext.of(consumer, parked.messageId(), null,
                        TraceParent.traceId(parked.traceparent()))) {
                    LOG.warnf("%s/%s: parked sequence %d failed when unparked, the stream waits at it: %s", consumer,
                            aggregate, parked.sequence(), settled.applied().detail());
                }
            }
        }
        return drain.reached();
    }

    /**
     * Applies a parked event. One that failed in an earlier pass of this batch is not tried again: it stays
     * parked with its error, and the stream waits at it. One that fails now ends the pass.
     */
    private Applied applyParked(Parked parked) {
        String poison = poisonedParked.get(parked.messageId());
        if (poison != null) {
            return new Applied(Applied.Kind.FAILED, poison);
        }
        return applyParked(handler, parser, parked, parkedHere.get(parked.id()), mode == Mode.LOCATING ? this::flush : null);
    }

    /** Applies one parked event ({@code event}: already parsed, or null); a failure ends the pass with {@link Failed}. */
    static Applied applyParked(InboxHandler handler, EventParser parser, Parked parked, InboxEvent event, Runnable flush) {
        try {
            HandlerResult result;
            try {
                result = handler.apply(event != null ? event : parser.parse(parked.body(), parked.messageId()));
            } catch (InvalidMessageException e) {
                result = HandlerResult.rejected("invalid when unparked: " + e.getMessage());
            }
            if (flush != null) {
                flush.run();
            }
            return result.applied() ? new Applied(Applied.Kind.APPLIED, null)
                    : new Applied(Applied.Kind.REJECTED, result.reason());
        } catch (RuntimeException e) {
            throw new Failed(Place.PARKED, -1, parked.messageId(), e);
        }
    }

    private void flush() {
        flush(entityManager, pendingWrites);
    }

    /** The handlers' writes to the database: the persistence context, then whatever other beans hold back. */
    static void flush(EntityManager entityManager, List<PendingWrites> pendingWrites) {
        entityManager.flush();
        for (PendingWrites writes : pendingWrites) {
            writes.flush();
        }
    }

    private InboxResult alreadyRecorded(InboxEvent event, InboxRepository.Recorded existing) {
        if (existing == null) {
            throw new IllegalStateException("event " + event.eventId() + " was claimed by another transaction but its"
                    + " row is gone");
        }
        if (existing.payloadHash().equals(event.payloadHash())) {
            return InboxResult.of(Outcome.DUPLICATE, event.eventId(), null);
        }
        return InboxResult.of(Outcome.CONFLICT, event.eventId(), "event id " + event.eventId()
                + " re-sent with a different payload: recorded hash " + existing.payloadHash() + " (" + existing.status()
                + "), received hash " + event.payloadHash());
    }

    private void giveBack(InboxRepository.Claim fresh) {
        if (fresh != null) {
            unclaim.add(fresh.id());
        }
    }

    static String describe(Entry entry) {
        return "failed message " + entry.message().source().messageId() + " (event " + entry.event().eventId() + ")";
    }
}
