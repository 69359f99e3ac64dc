package dev.txinbox.inbox;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

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
     * {@link Outcome#RETRIED} (transient) or {@link Outcome#DEAD_LETTERED} (permanent, not yet recorded:
     * the transport first copies the message to its dead-letter queue, then calls {@link #recordDeadLetter}).
     */
    public InboxResult receive(IncomingMessage message) {
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
            if (failurePolicy.isPermanent(e)) {
                return InboxResult.of(Outcome.DEAD_LETTERED, event.eventId(), failurePolicy.describe(e));
            }
            return new InboxResult(Outcome.RETRIED, event.eventId(), failurePolicy.describe(e), e);
        }
    }

    /**
     * Records a dead-lettered message as DEAD, in its own transaction. A live row with the same id (a
     * valid copy already processed) is left as it is. Call only after the copy is safe elsewhere.
     */
    public void recordDeadLetter(IncomingMessage message, String eventId, String reason) {
        String recordId = eventId != null ? eventId
                : "unparsed:" + (message.source().messageId() != null ? message.source().messageId()
                        : EventParser.rawHash(message.body()));
        QuarkusTransaction.requiringNew().run(() -> repository.recordDead(message, recordId, reason));
    }

    private InboxResult process(InboxHandler handler, IncomingMessage message, InboxEvent event) {
        String consumer = message.consumer();
        Optional<Long> claimed = repository.claim(message, event);
        if (claimed.isEmpty()) {
            return alreadyRecorded(consumer, event);
        }
        long id = claimed.get();
        if (!event.ordered()) {
            return applyClaimed(handler, id, event);
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
                InboxResult result = applyClaimed(handler, id, event);
                streams.advance(consumer, event.aggregateId(),
                        drainParked(handler, consumer, event.aggregateId(), event.sequence()));
                yield result;
            }
        };
    }

    private InboxResult applyClaimed(InboxHandler handler, long id, InboxEvent event) {
        HandlerResult result = handler.apply(event);
        if (result.applied()) {
            return InboxResult.of(Outcome.PROCESSED, event.eventId(), null);
        }
        repository.finish(id, InboxStatus.REJECTED, result.reason());
        return InboxResult.of(Outcome.REJECTED, event.eventId(), result.reason());
    }

    /**
     * Applies the parked successors of {@code last}, in order, while they form an unbroken run; a
     * rejected successor still counts as consumed, or its stream would stall behind it forever.
     * Returns the last sequence consumed.
     */
    private long drainParked(InboxHandler handler, String consumer, String aggregateId, long last) {
        Optional<InboxMessage> next;
        while ((next = repository.findParked(consumer, aggregateId, last + 1)).isPresent()) {
            InboxMessage entry = next.get();
            HandlerResult result;
            try {
                result = handler.apply(parser.parse(entry.body, entry.messageId));
            } catch (InvalidMessageException e) {
                result = HandlerResult.rejected("invalid when unparked: " + e.getMessage());
            }
            entry.status = result.applied() ? InboxStatus.PROCESSED : InboxStatus.REJECTED;
            entry.errorText = result.reason();
            entry.processedAt = Instant.now();
            last++;
            LOG.debugf("unparked %s/%s sequence %d: %s", consumer, aggregateId, last, entry.status);
        }
        repository.staleParkedUpTo(consumer, aggregateId, last);
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
