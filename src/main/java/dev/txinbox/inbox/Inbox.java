package dev.txinbox.inbox;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.persistence.EntityManager;

import org.jboss.logging.Logger;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.ordering.ParkedRun;
import dev.txinbox.ordering.StreamOrdering;
import io.quarkus.narayana.jta.QuarkusTransaction;

/**
 * The transactional inbox. A batch of messages runs in ONE transaction with no savepoint: every message is
 * claimed, ordered, handled and recorded ({@link InboxBatch}), and the batch commits once. When anything
 * fails, the transaction rolls back and the batch runs again without what failed, as {@link FailureDecision}
 * says; only the message at fault counts an attempt. The transport may delete a message only after
 * {@link #receive} returned an outcome that {@link Outcome#settlesMessage() settles} it.
 */
@ApplicationScoped
public class Inbox {

    private static final Logger LOG = Logger.getLogger(Inbox.class);

    /** Where a batch's time went: its passes' work, and the commit that ended the last one. */
    public interface Timing {
        Timing NONE = (work, commit) -> {
        };

        void batch(Duration work, Duration commit);
    }

    private final Map<String, InboxHandler> handlers = new HashMap<>();
    private final EventParser parser;
    private final InboxRepository repository;
    private final InboxFailures failureRecords;
    private final InboxReadModel readModel;
    private final StreamOrdering ordering;
    private final FailurePolicy failurePolicy;
    private final EntityManager entityManager;
    private final List<PendingWrites> pendingWrites;

    public Inbox(@Any Instance<InboxHandler> handlers, EventParser parser, InboxRepository repository,
            InboxFailures failureRecords, InboxReadModel readModel, StreamOrdering ordering, FailurePolicy failurePolicy,
            EntityManager entityManager, @Any Instance<PendingWrites> pendingWrites) {
        for (InboxHandler handler : handlers) {
            InboxHandler previous = this.handlers.putIfAbsent(handler.consumer(), handler);
            if (previous != null) {
                throw new IllegalStateException("two handlers for consumer '" + handler.consumer() + "': "
                        + previous.getClass().getName() + " and " + handler.getClass().getName());
            }
        }
        this.parser = parser;
        this.repository = repository;
        this.failureRecords = failureRecords;
        this.readModel = readModel;
        this.ordering = ordering;
        this.failurePolicy = failurePolicy;
        this.entityManager = entityManager;
        this.pendingWrites = pendingWrites.stream().toList();
    }

    public boolean hasConsumer(String consumer) {
        return handlers.containsKey(consumer);
    }

    /** One message alone: a batch of one. */
    public InboxResult receive(IncomingMessage message, TxinboxConfig.Retry retry) {
        return receive(List.of(message), retry).get(0);
    }

    public List<InboxResult> receive(List<IncomingMessage> messages, TxinboxConfig.Retry retry) {
        return receive(messages, retry, Timing.NONE);
    }

    /**
     * Runs a batch of one consumer's messages through the inbox, in receive order, in one transaction;
     * returns one result per message, in the same order. Never throws for a message's sake: failures come
     * back as {@link Outcome#RETRIED} (transient, attempt recorded; a database outage; or held back behind
     * a failed message of the same group) or {@link Outcome#DEAD_LETTERED} (permanent, or out of attempts;
     * not yet recorded as DEAD: the transport first copies the message to its dead-letter queue, then
     * records the result's {@link DeadLetter}).
     */
    public List<InboxResult> receive(List<IncomingMessage> messages, TxinboxConfig.Retry retry, Timing timing) {
        InboxResult[] results = new InboxResult[messages.size()];
        List<InboxBatch.Entry> entries = new ArrayList<>();
        InboxHandler handler = null;
        for (int i = 0; i < messages.size(); i++) {
            IncomingMessage message = messages.get(i);
            handler = handler(message.consumer());
            InboxEvent event = null;
            try {
                event = parser.parse(message.body(), message.eventIdAttribute());
                handler.validate(event);
                entries.add(new InboxBatch.Entry(i, message, event));
            } catch (InvalidMessageException e) {
                results[i] = deadLettered(message, event, event != null ? event.eventId()
                        : parser.eventIdOf(message.body(), message.eventIdAttribute()), e.getMessage(), 0);
            }
        }
        if (!entries.isEmpty()) {
            run(handler, entries, results, retry, timing);
        }
        return Arrays.asList(results);
    }

    /**
     * Runs the batch until a pass commits. Each failed pass rolls back, and {@link FailureDecision} says how the
     * batch goes on: without the message or parked event at fault, in the locating mode to find who is at fault,
     * message by message, or back to the queue. The attempts of failed messages are recorded after the commit,
     * each in a transaction of its own.
     */
    private void run(InboxHandler handler, List<InboxBatch.Entry> entries, InboxResult[] results,
            TxinboxConfig.Retry retry, Timing timing) {
        Map<Integer, RuntimeException> failures = new LinkedHashMap<>();
        Map<String, String> poisonedParked = new HashMap<>();
        FailureDecision.Mode mode = FailureDecision.Mode.FAST;
        int contentions = 0;
        int failedPasses = 0;
        long started = System.nanoTime();
        while (true) {
            InboxBatch batch = new InboxBatch(mode, handler, entries, failures, poisonedParked, repository, ordering,
                    parser, entityManager, pendingWrites);
            long[] worked = new long[1];
            InboxBatch.Failed failed;
            try {
                QuarkusTransaction.requiringNew().run(() -> {
                    batch.run();
                    worked[0] = System.nanoTime();
                });
                long committed = System.nanoTime();
                timing.batch(Duration.ofNanos(worked[0] - started), Duration.ofNanos(committed - worked[0]));
                batch.results().forEach((index, result) -> results[index] = result);
                break;
            } catch (InboxBatch.Failed e) {
                failed = e;
            } catch (RuntimeException e) {
                failed = new InboxBatch.Failed(FailureDecision.Place.BATCH, -1, null, e);
            }
            Throwable cause = failed.getCause();
            FailureDecision.Rerun rerun = FailureDecision.afterFailedPass(failurePolicy.classify(cause),
                    failurePolicy.isDatabaseError(cause), failed.place(), mode, entries.size(), contentions, failedPasses);
            LOG.debugf("consumer %s: a pass of %d messages failed at %s (%s): %s", handler.consumer(), entries.size(),
                    failed.place(), failurePolicy.describe(cause), rerun);
            switch (rerun) {
                case AGAIN -> contentions++;
                case LOCATE -> mode = FailureDecision.Mode.LOCATING;
                case WITHOUT_MESSAGE -> {
                    failedPasses++;
                    int index = failed.place() == FailureDecision.Place.BATCH ? entries.get(0).index() : failed.index();
                    failures.put(index, (RuntimeException) cause);
                }
                case WITHOUT_PARKED -> {
                    failedPasses++;
                    poisonedParked.put(failed.parkedEvent(), failurePolicy.describe(cause));
                }
                case ONE_BY_ONE -> {
                    oneByOne(handler, entries, failures, results, retry);
                    return;
                }
                case WAIT_FOR_DATABASE, SEND_BACK -> {
                    sendBack(entries, failures, results, retry, cause, rerun);
                    return;
                }
            }
        }
        for (InboxBatch.Entry entry : entries) {
            RuntimeException failure = failures.get(entry.index());
            if (failure != null) {
                results[entry.index()] = failed(entry.message(), entry.event(), failure, retry);
            }
        }
        for (InboxBatch.Entry entry : entries) {
            InboxResult result = results[entry.index()];
            if (result != null && result.outcome() == Outcome.CONFLICT) {
                // After the commit: a pass that was rolled back and run again would say it twice.
                MessageSource source = entry.message().source();
                try (LogContext ignored = LogContext.of(handler.consumer(), result.eventId(), source.messageId(),
                        TraceParent.traceId(source.traceparent()))) {
                    LOG.warnf("conflict for consumer %s: %s; the recorded entry is kept", handler.consumer(),
                            result.detail());
                }
            }
        }
    }

    /** Every message of the batch back to the queue, counting nothing (the messages already at fault aside). */
    private void sendBack(List<InboxBatch.Entry> entries, Map<Integer, RuntimeException> failures,
            InboxResult[] results, TxinboxConfig.Retry retry, Throwable cause, FailureDecision.Rerun rerun) {
        String error = failurePolicy.describe(cause);
        for (InboxBatch.Entry entry : entries) {
            RuntimeException failure = failures.get(entry.index());
            results[entry.index()] = failure != null ? failed(entry.message(), entry.event(), failure, retry)
                    : rerun == FailureDecision.Rerun.WAIT_FOR_DATABASE
                            ? InboxResult.outage(entry.event().eventId(), error, FailurePolicy.OUTAGE_DELAY)
                            : InboxResult.retry(entry.event().eventId(), error, 0, FailurePolicy.OUTAGE_DELAY);
        }
    }

    /**
     * Each message in a transaction of its own, in order, so that only the one at fault counts an attempt; the
     * later messages of a failed one's group are held back.
     */
    private void oneByOne(InboxHandler handler, List<InboxBatch.Entry> entries, Map<Integer, RuntimeException> failures,
            InboxResult[] results, TxinboxConfig.Retry retry) {
        LOG.debugf("consumer %s: running a batch of %d messages one by one", handler.consumer(), entries.size());
        HeldGroups held = new HeldGroups();
        for (InboxBatch.Entry entry : entries) {
            if (held.holds(entry.group())) {
                results[entry.index()] = held.heldBack(entry.event().eventId(), entry.group());
                continue;
            }
            RuntimeException failure = failures.get(entry.index());
            if (failure != null) {
                results[entry.index()] = failed(entry.message(), entry.event(), failure, retry);
            } else {
                InboxResult[] alone = new InboxResult[1];
                run(handler, List.of(new InboxBatch.Entry(0, entry.message(), entry.event())), alone, retry, Timing.NONE);
                results[entry.index()] = alone[0];
            }
            Outcome outcome = results[entry.index()].outcome();
            if (outcome == Outcome.RETRIED || outcome == Outcome.DEAD_LETTERED) {
                held.hold(entry.group(), InboxBatch.describe(entry));
            }
        }
    }

    /** Decides what a failed message means and records the attempt (outside the batch's transaction). */
    private InboxResult failed(IncomingMessage message, InboxEvent event, RuntimeException failure,
            TxinboxConfig.Retry retry) {
        String error = failurePolicy.describe(failure);
        switch (FailureDecision.ofFailedMessage(failurePolicy.classify(failure))) {
            case DEAD_LETTER -> {
                return deadLettered(message, event, event.eventId(), error, 0);
            }
            case WAIT_FOR_DATABASE -> {
                return InboxResult.outage(event.eventId(), error, FailurePolicy.OUTAGE_DELAY);
            }
            case RETRY_UNCOUNTED -> {
                return InboxResult.retry(event.eventId(), error, 0, FailurePolicy.OUTAGE_DELAY);
            }
            default -> {
                // RECORD_ATTEMPT, below
            }
        }
        AtomicReference<Duration> delay = new AtomicReference<>();
        Optional<Integer> attempts;
        try {
            attempts = QuarkusTransaction.requiringNew().call(() -> failureRecords.recordFailure(message, event, error,
                    attempt -> delay.updateAndGet(d -> failurePolicy.retryDelay(attempt, retry))));
        } catch (RuntimeException e) {
            String both = error + "; recording the attempt failed too: " + failurePolicy.describe(e);
            return switch (FailureDecision.whenRecordingFailed(failurePolicy.classify(e))) {
                case WAIT_FOR_DATABASE -> InboxResult.outage(event.eventId(), both, FailurePolicy.OUTAGE_DELAY);
                case DEAD_LETTER -> deadLettered(message, event, event.eventId(), both, 0);
                default -> InboxResult.retry(event.eventId(), both, 0, FailurePolicy.OUTAGE_DELAY);
            };
        }
        if (attempts.isEmpty()) {
            return InboxResult.of(Outcome.DUPLICATE, event.eventId(), "processed by another delivery meanwhile");
        }
        return FailureDecision.afterAttempt(attempts.get(), retry.maxAttempts()) == FailureDecision.Fate.DEAD_LETTER
                ? deadLettered(message, event, event.eventId(), error, attempts.get())
                : InboxResult.retry(event.eventId(), error, attempts.get(), delay.get());
    }

    /**
     * A message given up on: dead-lettered, with the DEAD row the transport records once the copy is safe.
     * {@code event} is what parsed (null when the body did not); {@code attempts}, those failed so far.
     */
    private InboxResult deadLettered(IncomingMessage message, InboxEvent event, String eventId, String error,
            int attempts) {
        return InboxResult.deadLettered(eventId, error, attempts,
                DeadLetter.of(failureRecords, message, event, eventId, error, attempts));
    }

    /**
     * Gives up waiting for the missing events of a stream: accepts its lowest parked sequence as the next
     * one, as if the gap before it had been filled, and drains from there, in one transaction. A parked event
     * that fails stays parked with its error, and the stream waits at it. Empty when the stream has nothing
     * parked.
     */
    public Optional<StreamOrdering.GapRelease> releaseGap(String consumer, String aggregateId) {
        InboxHandler handler = handler(consumer);
        Map<String, String> poisoned = new HashMap<>();
        while (true) {
            try {
                return QuarkusTransaction.requiringNew().call(() -> releaseGap(handler, aggregateId, poisoned));
            } catch (InboxBatch.Failed failed) {
                if (failed.place() != FailureDecision.Place.PARKED || poisoned.containsKey(failed.parkedEvent())) {
                    throw (RuntimeException) failed.getCause();
                }
                poisoned.put(failed.parkedEvent(), failurePolicy.describe(failed.getCause()));
            }
        }
    }

    private Optional<StreamOrdering.GapRelease> releaseGap(InboxHandler handler, String aggregateId,
            Map<String, String> poisoned) {
        String consumer = handler.consumer();
        long last = ordering.lock(consumer, Set.of(aggregateId)).get(aggregateId);
        Optional<Long> next = repository.lowestParkedAfter(consumer, aggregateId, last);
        if (next.isEmpty()) {
            return Optional.empty();
        }
        ParkedRun.Drain drain = new ParkedRun(repository.parked(consumer, aggregateId)).drain(next.get() - 1);
        for (ParkedRun.Parked parked = drain.next(); parked != null; parked = drain.next()) {
            String poison = poisoned.get(parked.messageId());
            drain.settle(poison != null ? new ParkedRun.Applied(ParkedRun.Applied.Kind.FAILED, poison)
                    : InboxBatch.applyParked(handler, parser, parked, null,
                            () -> InboxBatch.flush(entityManager, pendingWrites)));
        }
        RowStates states = new RowStates();
        drain.settled().forEach(states::settled);
        repository.write(states.all());
        ordering.advance(consumer, Map.of(aggregateId, drain.reached()));
        return Optional.of(new StreamOrdering.GapRelease(last, last + 1, next.get() - 1, drain.reached()));
    }

    /**
     * Runs a recorded entry through the inbox again, from its stored body. The claim makes this
     * idempotent: a processed entry comes back as a duplicate; a FAILED or DEAD one is tried anew.
     * Empty when there is no such entry.
     */
    public Optional<InboxResult> replay(String consumer, String messageId, TxinboxConfig.Retry retry) {
        Optional<InboxMessage> entry = QuarkusTransaction.requiringNew()
                .call(() -> readModel.findEntry(consumer, messageId));
        return entry.map(e -> {
            IncomingMessage message = new IncomingMessage(consumer, e.body, e.messageId,
                    new MessageSource(e.sourceQueue, e.sourceMessageId, e.sourceGroupId, e.sourceSentAt,
                            e.receiveCount, e.traceparent));
            InboxResult result = receive(message, retry);
            if (result.outcome() == Outcome.DEAD_LETTERED) {
                // Its copy is in the dead-letter queue already; record why it failed again.
                result.deadLetter().replayed().record();
            }
            return result;
        });
    }

    /** A round trip to the database; throws while it is unreachable. */
    public void ping() {
        QuarkusTransaction.requiringNew().run(repository::ping);
    }

    private InboxHandler handler(String consumer) {
        InboxHandler handler = handlers.get(consumer);
        if (handler == null) {
            throw new IllegalStateException("no InboxHandler bean for consumer '" + consumer + "'");
        }
        return handler;
    }
}
