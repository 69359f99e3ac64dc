package dev.txinbox.outbox;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import org.jboss.logging.Logger;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.inbox.LogContext;
import dev.txinbox.inbox.TraceParent;
import dev.txinbox.outbox.OutboxPublisher.Failure;
import dev.txinbox.outbox.OutboxPublisher.PublishException;
import dev.txinbox.outbox.OutboxPublisher.Refusal;

/**
 * Sends a round's calls, several in flight, and records what became of each event: taken (marked published, one
 * statement per round), refused for its own fault (an attempt counted; only its aggregate waits, a growing delay),
 * or not taken for now (nothing counted; the next round sends it again). A call the broker fails as a whole is the
 * broker's failure, thrown to the relay once what the other calls carried is marked.
 */
final class RelaySender {

    // The relay's category: what operators filter and alert on.
    private static final Logger LOG = Logger.getLogger(OutboxRelay.class);

    /**
     * {@code SendMessageBatch} calls a relay keeps in flight: one at a time, a relay publishes no faster than ten
     * events per broker round trip. Kept well below the SQS client's connection pool (50), which the inbox's
     * receives and deletes share.
     */
    static final int SENDS_IN_FLIGHT = 8;

    /** A call sent, and its answer to come. */
    private record InFlight(Call call, CompletableFuture<List<Refusal>> answer) {
    }

    private final String relay;
    private final OutboxPublisher publisher;
    private final String queue;
    private final TxinboxConfig.Relay config;
    private final OutboxStore store;
    private final RelayHealth health;
    private final OutboxMetrics metrics;
    private int sends;

    RelaySender(String relay, OutboxPublisher publisher, String queue, TxinboxConfig.Relay config,
            OutboxStore store, RelayHealth health, OutboxMetrics metrics) {
        this.relay = relay;
        this.publisher = publisher;
        this.queue = queue;
        this.config = config;
        this.store = store;
        this.health = health;
        this.metrics = metrics;
    }

    /** Counts the calls of a new round from zero. */
    void newRound() {
        sends = 0;
    }

    /** The calls made this round. */
    int sends() {
        return sends;
    }

    /** With nothing to send, no send can tell that the broker or the queue is back: asks. */
    void probe() {
        publisher.probe(queue);
        health.answered();
    }

    /**
     * Sends the calls, {@link #SENDS_IN_FLIGHT} at a time, and marks what the broker took in one statement. The
     * calls carry heads of distinct aggregates (at most one event per aggregate per round), so none of them can
     * overtake another's predecessor, whichever is answered first. When the broker fails a call as a whole, the
     * others' answers are still taken and marked before the failure is handled.
     *
     * @return true when something was published
     */
    boolean send(List<Call> calls) throws SQLException {
        List<Head> sent = new ArrayList<>();
        Map<Call, String> refusedRequests = new LinkedHashMap<>();
        PublishException outage = null;
        ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
        int next = 0;
        while (next < calls.size() || !inFlight.isEmpty()) {
            while (next < calls.size() && inFlight.size() < SENDS_IN_FLIGHT && outage == null) {
                Call call = calls.get(next++);
                sends++;
                try {
                    inFlight.add(new InFlight(call, publisher.send(queue, call.messages())));
                } catch (PublishException e) {
                    outage = e;
                }
            }
            if (outage != null && next < calls.size()) {
                next = calls.size(); // what was not sent yet waits for the broker to come back
            }
            InFlight oldest = inFlight.poll();
            if (oldest == null) {
                break;
            }
            try {
                settle(oldest.call(), await(oldest.answer()), sent);
            } catch (PublishException e) {
                if (e.failure() == Failure.REQUEST_REFUSED) {
                    refusedRequests.put(oldest.call(), e.getMessage());
                } else if (outage == null) {
                    outage = e;
                }
            }
        }
        published(sent);
        if (outage != null) {
            throw outage;
        }
        if (!sent.isEmpty() || !calls.isEmpty()) {
            health.answered();
        }
        boolean published = !sent.isEmpty();
        for (Map.Entry<Call, String> refusedRequest : refusedRequests.entrySet()) {
            published |= sendAlone(refusedRequest.getKey(), refusedRequest.getValue());
        }
        return published;
    }

    /** The event itself is at fault: an attempt counted, and its aggregate waits a growing delay. */
    void refuse(Head head, String reason) throws SQLException {
        int attempts = head.attempts() + 1;
        Duration delay = Backoff.retry(attempts, config.retryBase(), config.retryCap());
        store.refused(head.id(), attempts, reason, Instant.now().plus(delay));
        metrics.failure(OutboxMetrics.REJECTED, 1);
        try (LogContext ignored = LogContext.of(null, head.id().toString(), null,
                TraceParent.traceId(Outbox.traceparentOf(head.spanContext())))) {
            LOG.warnf("outbox relay %s: event %s (%s %s, sequence %d) refused, attempt %d; aggregate %s waits %d ms:"
                    + " %s", relay, head.id(), head.aggregateType(), head.type(), head.sequence(), attempts,
                    head.aggregateId(), delay.toMillis(), reason);
        }
    }

    /**
     * The broker refused a call as a whole (too long, invalid) and its answer does not say which entry is at
     * fault: each alone finds it.
     */
    private boolean sendAlone(Call call, String reason) throws SQLException {
        if (call.heads().size() == 1) {
            refuse(call.heads().get(0), reason);
            return false;
        }
        List<Head> sent = new ArrayList<>();
        for (Call one : call.alone()) {
            sends++;
            try {
                settle(one, await(publisher.send(queue, one.messages())), sent);
            } catch (PublishException e) {
                if (e.failure() != Failure.REQUEST_REFUSED) {
                    published(sent);
                    throw e;
                }
                refuse(one.heads().get(0), e.getMessage());
            }
        }
        published(sent);
        return !sent.isEmpty();
    }

    /** Sorts a call's answer: taken (into {@code sent}), refused for the event's fault, or not taken for now. */
    private void settle(Call call, List<Refusal> refusals, List<Head> sent) throws SQLException {
        Map<String, Refusal> refused = new HashMap<>();
        refusals.forEach(r -> refused.put(r.entryId(), r));
        int taken = 0;
        for (int i = 0; i < call.heads().size(); i++) {
            Head head = call.heads().get(i);
            Refusal refusal = refused.get(Integer.toString(i));
            if (refusal == null) {
                sent.add(head);
                taken++;
            } else if (refusal.senderFault()) {
                refuse(head, refusal.reason());
            } else {
                // The broker's fault, not the event's: no attempt counted, the next round sends it again.
                metrics.failure(OutboxMetrics.UNAVAILABLE, 1);
                LOG.debugf("outbox relay %s: event %s not taken for now: %s", relay, head.id(), refusal.reason());
            }
        }
        if (taken > 0) {
            metrics.batchSize().record(taken);
        }
    }

    private void published(List<Head> sent) throws SQLException {
        if (sent.isEmpty()) {
            return;
        }
        store.markPublished(sent.stream().map(Head::id).toList());
        metrics.published(sent.size());
        Instant now = Instant.now();
        sent.forEach(h -> metrics.commitToSend().record(Duration.between(h.timestamp(), now)));
    }

    private static List<Refusal> await(CompletableFuture<List<Refusal>> answer) {
        try {
            return answer.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishException(Failure.UNAVAILABLE, "interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof PublishException publish) {
                throw publish;
            }
            Throwable cause = e.getCause() instanceof CompletionException c && c.getCause() != null ? c.getCause()
                    : e.getCause();
            if (cause instanceof PublishException publish) {
                throw publish;
            }
            throw new PublishException(Failure.UNAVAILABLE, String.valueOf(cause), cause);
        }
    }
}
