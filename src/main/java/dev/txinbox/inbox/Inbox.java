package dev.txinbox.inbox;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;

import org.jboss.logging.Logger;

import dev.txinbox.ordering.OrderingRule;
import dev.txinbox.ordering.StreamStateRepository;
import io.quarkus.narayana.jta.QuarkusTransaction;

/**
 * The transactional inbox. For one message, in ONE transaction: claim its event id, apply the
 * ordering rule, run the consumer's handler, record the outcome. Either all of it commits or none of
 * it does; the transport may delete the message only after {@link #receive} returned an outcome that
 * {@link Outcome#settlesMessage() settles} it.
 */
@ApplicationScoped
public class Inbox {

    private static final Logger LOG = Logger.getLogger(Inbox.class);

    private final Map<String, InboxHandler> handlers = new HashMap<>();
    private final EventParser parser;
    private final InboxRepository repository;
    private final StreamStateRepository streams;
    private final FailurePolicy failurePolicy;

    public Inbox(@Any Instance<InboxHandler> handlers, EventParser parser, InboxRepository repository,
            StreamStateRepository streams, FailurePolicy failurePolicy) {
        for (InboxHandler handler : handlers) {
            InboxHandler previous = this.handlers.putIfAbsent(handler.consumer(), handler);
            if (previous != null) {
                throw new IllegalStateException("two handlers for consumer '" + handler.consumer() + "': "
                        + previous.getClass().getName() + " and " + handler.getClass().getName());
            }
        }
        this.parser = parser;
        this.repository = repository;
        this.streams = streams;
        this.failurePolicy = failurePolicy;
    }

    public boolean hasConsumer(String consumer) {
        return handlers.containsKey(consumer);
    }

    /**
     * Runs one message through the inbox. Never throws for a message's sake: failures come back as
     * {@link Outcome#RETRIED} (transient, attempt recorded, or a database outage) or
     * {@link Outcome#DEAD_LETTERED} (permanent, or out of attempts; not yet recorded as DEAD: the
     * transport first copies the message to its dead-letter queue, then calls {@link #recordDeadLetter}).
     */
    public InboxResult receive(IncomingMessage message, RetrySettings retry) {
        InboxHandler handler = handler(message.consumer());
        InboxEvent event;
        try {
            event = parser.parse(message.body(), message.eventIdAttribute());
            handler.validate(event);
        } catch (InvalidMessageException e) {
            return InboxResult.of(Outcome.DEAD_LETTERED, parser.eventIdOf(message.body(), message.eventIdAttribute()),
                    e.getMessage());
        }
        try {
            return QuarkusTransaction.requiringNew().call(() -> process(handler, message, event));
        } catch (RuntimeException e) {
            return failed(message, event, e, retry);
        }
    }

    /** Decides what a failed transaction means and records the attempt (outside the rolled-back one). */
    private InboxResult failed(IncomingMessage message, InboxEvent event, RuntimeException failure,
            RetrySettings retry) {
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
            return new InboxResult(Outcome.DEAD_LETTERED, event.eventId(),
                    "gave up after " + attempts.get() + " attempts: " + error, attempts.get(), null, false);
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

    /** What a gap release did. */
    public record GapRelease(long lastBefore, long skippedFrom, long skippedTo, long lastAfter) {
    }

    /**
     * Gives up waiting for the missing events of a stream: accepts its lowest parked sequence as the
     * next one, as if the gap before it had been filled, and drains from there, in one transaction.
     * Empty when the stream has nothing parked.
     */
    public Optional<GapRelease> releaseGap(String consumer, String aggregateId) {
        InboxHandler handler = handler(consumer);
        return QuarkusTransaction.requiringNew().call(() -> {
            long last = streams.lock(consumer, aggregateId);
            Optional<Long> next = repository.lowestParkedAfter(consumer, aggregateId, last);
            if (next.isEmpty()) {
                return Optional.empty();
            }
            long reached = drainParked(handler, consumer, aggregateId, next.get() - 1);
            streams.advance(consumer, aggregateId, reached);
            return Optional.of(new GapRelease(last, last + 1, next.get() - 1, reached));
        });
    }

    /**
     * Runs a recorded entry through the inbox again, from its stored body. The claim makes this
     * idempotent: a processed entry comes back as a duplicate; a FAILED or DEAD one is tried anew.
     * Empty when there is no such entry.
     */
    public Optional<InboxResult> replay(String consumer, String messageId, RetrySettings retry) {
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

    private InboxResult process(InboxHandler handler, IncomingMessage message, InboxEvent event) {
        String consumer = message.consumer();
        Optional<InboxRepository.Claim> claimed = repository.claim(message, event);
        if (claimed.isEmpty()) {
            return alreadyRecorded(consumer, event);
        }
        long id = claimed.get().id();
        int attempt = claimed.get().attempt();
        if (!event.ordered()) {
            return applyClaimed(handler, id, event, attempt);
        }
        long last = streams.lock(consumer, event.aggregateId());
        return switch (OrderingRule.decide(last, event.sequence())) {
            case STALE -> {
                repository.finish(id, InboxStatus.STALE,
                        "sequence " + event.sequence() + " is not after the last applied " + last);
                yield InboxResult.of(Outcome.STALE, event.eventId(), null);
            }
            case PARK -> {
                repository.finish(id, InboxStatus.PARKED, "waiting for sequence " + (last + 1));
                yield InboxResult.of(Outcome.PARKED, event.eventId(), "waiting for sequence " + (last + 1));
            }
            case APPLY -> {
                InboxResult result = applyClaimed(handler, id, event, attempt);
                streams.advance(consumer, event.aggregateId(),
                        drainParked(handler, consumer, event.aggregateId(), event.sequence()));
                yield result;
            }
        };
    }

    private InboxResult applyClaimed(InboxHandler handler, long id, InboxEvent event, int attempt) {
        HandlerResult result = handler.apply(event);
        if (result.applied()) {
            return new InboxResult(Outcome.PROCESSED, event.eventId(), null, attempt, null, false);
        }
        repository.finish(id, InboxStatus.REJECTED, result.reason());
        return new InboxResult(Outcome.REJECTED, event.eventId(), result.reason(), attempt, null, false);
    }

    /**
     * Applies the parked successors of {@code last}, in order, while they form an unbroken run; a
     * rejected successor still counts as consumed, or its stream would stall behind it forever. Parked
     * events the stream has moved past (another event with the same sequence was applied) can never
     * apply: they become STALE instead of waiting forever. Returns the last sequence consumed.
     */
    private long drainParked(InboxHandler handler, String consumer, String aggregateId, long last) {
        for (InboxRepository.Parked entry : repository.parked(consumer, aggregateId)) {
            if (entry.sequence() <= last) {
                repository.finish(entry.id(), InboxStatus.STALE, "another event with this sequence was applied first");
                continue;
            }
            if (entry.sequence() != last + 1) {
                break; // another gap: the rest waits for it
            }
            HandlerResult result;
            try {
                result = handler.apply(parser.parse(entry.body(), entry.messageId()));
            } catch (InvalidMessageException e) {
                result = HandlerResult.rejected("invalid when unparked: " + e.getMessage());
            }
            repository.finish(entry.id(), result.applied() ? InboxStatus.PROCESSED : InboxStatus.REJECTED,
                    result.reason());
            last++;
            LOG.debugf("unparked %s/%s sequence %d: %s", consumer, aggregateId, last, result.applied() ? "applied" : "rejected");
        }
        return last;
    }

    private InboxResult alreadyRecorded(String consumer, InboxEvent event) {
        InboxMessage existing = repository.findEntry(consumer, event.eventId())
                .orElseThrow(() -> new IllegalStateException(
                        "event " + event.eventId() + " was claimed by another transaction but its row is gone"));
        if (existing.payloadHash.equals(event.payloadHash())) {
            return InboxResult.of(Outcome.DUPLICATE, event.eventId(), null);
        }
        String detail = "event id " + event.eventId() + " re-sent with a different payload: recorded hash "
                + existing.payloadHash + ", received hash " + event.payloadHash();
        LOG.warnf("conflict for consumer %s: %s; the recorded entry (%s) is kept", consumer, detail, existing.status);
        return InboxResult.of(Outcome.CONFLICT, event.eventId(), detail);
    }

    private InboxHandler handler(String consumer) {
        InboxHandler handler = handlers.get(consumer);
        if (handler == null) {
            throw new IllegalStateException("no InboxHandler bean for consumer '" + consumer + "'");
        }
        return handler;
    }
}
