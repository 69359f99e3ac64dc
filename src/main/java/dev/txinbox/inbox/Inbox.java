package dev.txinbox.inbox;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;

import org.jboss.logging.Logger;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.ordering.StreamOrdering;
import io.quarkus.narayana.jta.QuarkusTransaction;

/**
 * The transactional inbox. A batch of messages runs in ONE transaction: every message is claimed,
 * ordered, handled and recorded, each under its own savepoint ({@link InboxBatch}), and the batch
 * commits once. A message that fails is rolled back alone; the transport may delete a message only after
 * {@link #receive} returned an outcome that {@link Outcome#settlesMessage() settles} it.
 */
@ApplicationScoped
public class Inbox {

    private static final Logger LOG = Logger.getLogger(Inbox.class);
    /** A deadlock or serialization failure reruns the batch at once; past this, its messages wait and come back. */
    private static final int MAX_CONTENTION_RERUNS = 3;

    private final Map<String, InboxHandler> handlers = new HashMap<>();
    private final EventParser parser;
    private final InboxRepository repository;
    private final StreamOrdering ordering;
    private final FailurePolicy failurePolicy;
    private final Savepoints savepoints;

    public Inbox(@Any Instance<InboxHandler> handlers, EventParser parser, InboxRepository repository,
            StreamOrdering ordering, FailurePolicy failurePolicy, Savepoints savepoints) {
        for (InboxHandler handler : handlers) {
            InboxHandler previous = this.handlers.putIfAbsent(handler.consumer(), handler);
            if (previous != null) {
                throw new IllegalStateException("two handlers for consumer '" + handler.consumer() + "': "
                        + previous.getClass().getName() + " and " + handler.getClass().getName());
            }
        }
        this.parser = parser;
        this.repository = repository;
        this.ordering = ordering;
        this.failurePolicy = failurePolicy;
        this.savepoints = savepoints;
    }

    public boolean hasConsumer(String consumer) {
        return handlers.containsKey(consumer);
    }

    /** One message alone: a batch of one. */
    public InboxResult receive(IncomingMessage message, TxinboxConfig.Retry retry) {
        return receive(List.of(message), retry).get(0);
    }

    /**
     * Runs a batch of one consumer's messages through the inbox, in receive order, in one transaction;
     * returns one result per message, in the same order. Never throws for a message's sake: failures come
     * back as {@link Outcome#RETRIED} (transient, attempt recorded; a database outage; or held back behind
     * a failed message of the same group) or {@link Outcome#DEAD_LETTERED} (permanent, or out of attempts;
     * not yet recorded as DEAD: the transport first copies the message to its dead-letter queue, then
     * calls {@link #recordDeadLetter}).
     */
    public List<InboxResult> receive(List<IncomingMessage> messages, TxinboxConfig.Retry retry) {
        InboxResult[] results = new InboxResult[messages.size()];
        List<InboxBatch.Entry> entries = new ArrayList<>();
        InboxHandler handler = null;
        for (int i = 0; i < messages.size(); i++) {
            IncomingMessage message = messages.get(i);
            handler = handler(message.consumer());
            try {
                InboxEvent event = parser.parse(message.body(), message.eventIdAttribute());
                handler.validate(event);
                entries.add(new InboxBatch.Entry(i, message, event));
            } catch (InvalidMessageException e) {
                results[i] = InboxResult.of(Outcome.DEAD_LETTERED,
                        parser.eventIdOf(message.body(), message.eventIdAttribute()), e.getMessage());
            }
        }
        if (!entries.isEmpty()) {
            run(handler, entries, results, retry);
        }
        return Arrays.asList(results);
    }

    /**
     * Runs the batch until it commits. A message that dooms the whole transaction (Hibernate marks it
     * rollback-only when its own operation fails) is taken out and the rest run again; so is a parked
     * event that does so while drained. A deadlock or serialization failure reruns the batch unchanged.
     * The attempts of failed messages are recorded after the commit, each in a transaction of its own.
     */
    private void run(InboxHandler handler, List<InboxBatch.Entry> entries, InboxResult[] results, TxinboxConfig.Retry retry) {
        Map<Integer, RuntimeException> failures = new LinkedHashMap<>();
        Map<Long, String> poisonedParked = new HashMap<>();
        int contentions = 0;
        while (true) {
            InboxBatch batch = new InboxBatch(handler, entries, failures, poisonedParked, repository, ordering,
                    parser, failurePolicy, savepoints);
            try {
                QuarkusTransaction.requiringNew().run(batch::run);
                batch.results().forEach((index, result) -> results[index] = result);
                failures.putAll(batch.failures());
                break;
            } catch (InboxBatch.Doomed doomed) {
                if (failurePolicy.isOutage(doomed.getCause())) {
                    // Not the message's fault: every message waits for the database, none is singled out.
                    batchFailed(handler, entries, failures, results, retry, (RuntimeException) doomed.getCause());
                    return;
                }
                if (failurePolicy.isContention(doomed.getCause()) && ++contentions <= MAX_CONTENTION_RERUNS) {
                    LOG.debugf("batch of %d met another transaction (%s); running it again", entries.size(),
                            failurePolicy.describe(doomed.getCause()));
                } else if (doomed.parkedId() != null) {
                    poisonedParked.put(doomed.parkedId(), failurePolicy.describe(doomed.getCause()));
                } else {
                    failures.put(doomed.index(), (RuntimeException) doomed.getCause());
                }
            } catch (RuntimeException e) {
                if (failurePolicy.isContention(e) && ++contentions <= MAX_CONTENTION_RERUNS) {
                    continue;
                }
                batchFailed(handler, entries, failures, results, retry, e);
                return;
            }
        }
        for (InboxBatch.Entry entry : entries) {
            RuntimeException failure = failures.get(entry.index());
            if (failure != null) {
                results[entry.index()] = failed(entry.message(), entry.event(), failure, retry);
            }
        }
    }

    /**
     * The batch as a whole failed (the claim, the stream locks or the commit). An outage or lasting
     * contention sends every message back, counting nothing; anything else runs the messages one by one, so
     * that the one at fault is found and only it counts an attempt.
     */
    private void batchFailed(InboxHandler handler, List<InboxBatch.Entry> entries,
            Map<Integer, RuntimeException> failures, InboxResult[] results, TxinboxConfig.Retry retry, RuntimeException e) {
        String error = failurePolicy.describe(e);
        if (failurePolicy.isOutage(e) || failurePolicy.isContention(e) || entries.size() == 1) {
            for (InboxBatch.Entry entry : entries) {
                results[entry.index()] = failurePolicy.isOutage(e)
                        ? InboxResult.outage(entry.event().eventId(), error, FailurePolicy.OUTAGE_DELAY)
                        : failurePolicy.isContention(e)
                                ? InboxResult.retry(entry.event().eventId(), error, 0, FailurePolicy.OUTAGE_DELAY)
                                : failed(entry.message(), entry.event(), e, retry);
            }
            return;
        }
        LOG.debugf("batch of %d failed as a whole (%s); running its messages one by one", entries.size(), error);
        Map<String, String> failedGroups = new HashMap<>();
        for (InboxBatch.Entry entry : entries) {
            String group = entry.message().source().groupId();
            if (failures.containsKey(entry.index()) || (group != null && failedGroups.containsKey(group))) {
                results[entry.index()] = failures.containsKey(entry.index())
                        ? failed(entry.message(), entry.event(), failures.get(entry.index()), retry)
                        : InboxResult.heldBack(entry.event().eventId(), "held back behind " + failedGroups.get(group));
                continue;
            }
            InboxResult[] alone = new InboxResult[1];
            run(handler, List.of(new InboxBatch.Entry(0, entry.message(), entry.event())), alone, retry);
            results[entry.index()] = alone[0];
            boolean failed = alone[0].outcome() == Outcome.RETRIED || alone[0].outcome() == Outcome.DEAD_LETTERED;
            if (group != null && failed) {
                failedGroups.put(group, "failed message " + entry.message().source().messageId());
            }
        }
    }

    /** Decides what a failed message means and records the attempt (outside the batch's transaction). */
    private InboxResult failed(IncomingMessage message, InboxEvent event, RuntimeException failure,
            TxinboxConfig.Retry retry) {
        String error = failurePolicy.describe(failure);
        if (failurePolicy.isPermanent(failure)) {
            return InboxResult.of(Outcome.DEAD_LETTERED, event.eventId(), error);
        }
        if (failurePolicy.isOutage(failure)) {
            return InboxResult.outage(event.eventId(), error, FailurePolicy.OUTAGE_DELAY);
        }
        AtomicReference<Duration> delay = new AtomicReference<>();
        Optional<Integer> attempts;
        try {
            attempts = QuarkusTransaction.requiringNew().call(() -> repository.recordFailure(message, event, error,
                    attempt -> delay.updateAndGet(d -> failurePolicy.retryDelay(attempt, retry))));
        } catch (RuntimeException e) {
            String both = error + "; recording the attempt failed too: " + failurePolicy.describe(e);
            if (failurePolicy.isOutage(e)) {
                return InboxResult.outage(event.eventId(), both, FailurePolicy.OUTAGE_DELAY);
            }
            if (failurePolicy.isPermanent(e)) {
                return InboxResult.of(Outcome.DEAD_LETTERED, event.eventId(), both);
            }
            // Neither the message's fault nor an outage: try again later, counting nothing, pausing nobody.
            return InboxResult.retry(event.eventId(), both, 0, FailurePolicy.OUTAGE_DELAY);
        }
        if (attempts.isEmpty()) {
            return InboxResult.of(Outcome.DUPLICATE, event.eventId(), "processed by another delivery meanwhile");
        }
        if (failurePolicy.exhausted(attempts.get(), retry)) {
            return InboxResult.deadLettered(event.eventId(), error, attempts.get());
        }
        return InboxResult.retry(event.eventId(), error, attempts.get(), delay.get());
    }

    /**
     * Records a dead-lettered message as DEAD, in its own transaction. A live row with the same id (a
     * valid copy already processed) is left as it is. Call only after the copy is safe elsewhere.
     */
    public void recordDeadLetter(IncomingMessage message, String eventId, String reason) {
        String recordId = eventId != null ? eventId
                : "unparsed:" + (message.source().messageId() != null ? message.source().messageId()
                        : EventParser.rawHash(message.body()));
        InboxEvent event = parsedOrNull(message);
        QuarkusTransaction.requiringNew().run(() -> repository.recordDead(message, recordId, event, reason));
    }

    /**
     * Gives up waiting for the missing events of a stream: accepts its lowest parked sequence as the
     * next one, as if the gap before it had been filled, and drains from there, in one transaction.
     * Empty when the stream has nothing parked.
     */
    public Optional<StreamOrdering.GapRelease> releaseGap(String consumer, String aggregateId) {
        InboxHandler handler = handler(consumer);
        return QuarkusTransaction.requiringNew().call(() -> ordering.releaseGap(consumer, aggregateId,
                InboxBatch.parkedApplier(handler, Map.of(), parser, failurePolicy, savepoints)));
    }

    /**
     * Runs a recorded entry through the inbox again, from its stored body. The claim makes this
     * idempotent: a processed entry comes back as a duplicate; a FAILED or DEAD one is tried anew.
     * Empty when there is no such entry.
     */
    public Optional<InboxResult> replay(String consumer, String messageId, TxinboxConfig.Retry retry) {
        Optional<InboxMessage> entry = QuarkusTransaction.requiringNew()
                .call(() -> repository.findEntry(consumer, messageId));
        return entry.map(e -> {
            IncomingMessage message = new IncomingMessage(consumer, e.body, e.messageId,
                    new MessageSource(e.sourceQueue, e.sourceMessageId, e.sourceGroupId, e.sourceSentAt,
                            e.receiveCount));
            InboxResult result = receive(message, retry);
            if (result.outcome() == Outcome.DEAD_LETTERED) {
                // Its copy is in the dead-letter queue already; record why it failed again.
                recordDeadLetter(message, result.eventId() != null ? result.eventId() : messageId,
                        "replay: " + result.detail());
            }
            return result;
        });
    }

    /** A round trip to the database; throws while it is unreachable. */
    public void ping() {
        QuarkusTransaction.requiringNew().run(repository::ping);
    }

    private InboxEvent parsedOrNull(IncomingMessage message) {
        try {
            return parser.parse(message.body(), message.eventIdAttribute());
        } catch (InvalidMessageException e) {
            return null;
        }
    }

    private InboxHandler handler(String consumer) {
        InboxHandler handler = handlers.get(consumer);
        if (handler == null) {
            throw new IllegalStateException("no InboxHandler bean for consumer '" + consumer + "'");
        }
        return handler;
    }
}
