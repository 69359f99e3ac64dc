package dev.txinbox.support;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;

import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

import dev.txinbox.inbox.HandlerResult;
import dev.txinbox.inbox.InboxEvent;
import dev.txinbox.inbox.InboxHandler;
import dev.txinbox.inbox.InvalidMessageException;
import dev.txinbox.messaging.sqs.SqsInboxReceiver;

/**
 * A second consumer, "ledger", living only in the tests: the whole of it is this class plus the
 * configuration in {@link ElasticMqResource}. Its payload scripts its behaviour:
 * {@code failTimes} (throw after writing, on the first N attempts), {@code sleepMs} (work slowly),
 * {@code reject} (a business rejection), {@code hold} (wait, inside the transaction, until the test calls
 * {@link #release}), {@code ref} (insert a row with that unique key: a second event
 * with the same ref violates the constraint), {@code touch} (keys of shared counters to increment, in that
 * order, pausing {@code touchPauseMs} after each: two batches touching them in opposite orders deadlock),
 * {@code entityRef} (the same as {@code ref}, but persisted as an entity, last: the insert waits for the next
 * flush, which may come at the batch's end or inside a later message's query).
 */
@ApplicationScoped
public class LedgerConsumer implements InboxHandler {

    public static final String CONSUMER = "ledger";

    private final EntityManager entityManager;
    private final SqsInboxReceiver receiver;
    private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    /** Events whose handler waits, inside its transaction, until the test lets it go ({@code hold}). */
    private final Map<String, java.util.concurrent.CountDownLatch> held = new ConcurrentHashMap<>();
    private final Map<String, java.util.concurrent.CountDownLatch> running = new ConcurrentHashMap<>();

    public LedgerConsumer(EntityManager entityManager, SqsInboxReceiver receiver) {
        this.entityManager = entityManager;
        this.receiver = receiver;
    }

    @Incoming(CONSUMER)
    public CompletionStage<Void> receive(Message<String> message) {
        return receiver.accept(CONSUMER, message);
    }

    @Override
    public String consumer() {
        return CONSUMER;
    }

    @Override
    public void validate(InboxEvent event) {
        if (!"ENTRY".equals(event.type())) {
            throw new InvalidMessageException("unknown event type '" + event.type() + "' for consumer ledger");
        }
    }

    @Override
    public HandlerResult apply(InboxEvent event) {
        if (event.payload().path("reject").asBoolean(false)) {
            return HandlerResult.rejected("rejected on request");
        }
        entityManager.createNativeQuery(
                "insert into ledger_entries (event_id, group_key, sequence_no) values (?1, ?2, ?3)")
                .setParameter(1, event.eventId())
                .setParameter(2, event.aggregateId() == null ? "" : event.aggregateId())
                .setParameter(3, event.sequence() == null ? 0L : event.sequence())
                .executeUpdate();
        if (event.payload().hasNonNull("ref")) {
            entityManager.createNativeQuery("insert into ledger_refs (ref, event_id) values (?1, ?2)")
                    .setParameter(1, event.payload().get("ref").asText()).setParameter(2, event.eventId())
                    .executeUpdate();
        }
        for (var key : event.payload().path("touch")) {
            entityManager.createNativeQuery("insert into ledger_counters (key, n) values (?1, 1)"
                    + " on conflict (key) do update set n = ledger_counters.n + 1")
                    .setParameter(1, key.asText()).executeUpdate();
            sleep(event.payload().path("touchPauseMs").asLong(0));
        }
        sleep(event.payload().path("sleepMs").asLong(0));
        if (event.payload().path("hold").asBoolean(false)) {
            started(event.eventId()).countDown();
            await(held.computeIfAbsent(event.eventId(), id -> new java.util.concurrent.CountDownLatch(1)));
        }
        int attempt = attempts.computeIfAbsent(event.eventId(), id -> new AtomicInteger()).incrementAndGet();
        if (attempt <= event.payload().path("failTimes").asInt(0)) {
            throw new IllegalStateException("scripted failure " + attempt + " of event " + event.eventId());
        }
        entityManager.createNativeQuery("update ledger_entries set finished_at = ?1 where event_id = ?2")
                .setParameter(1, Instant.now()).setParameter(2, event.eventId()).executeUpdate();
        if (event.payload().hasNonNull("entityRef")) {
            LedgerRef ref = new LedgerRef();
            ref.ref = event.payload().get("entityRef").asText();
            ref.eventId = event.eventId();
            entityManager.persist(ref);
        }
        return HandlerResult.success();
    }

    /** Waits until the handler of a held event has started (it is then inside its transaction). */
    public boolean awaitStarted(String eventId) throws InterruptedException {
        return started(eventId).await(30, java.util.concurrent.TimeUnit.SECONDS);
    }

    /** Lets a held event's handler finish. */
    public void release(String eventId) {
        held.computeIfAbsent(eventId, id -> new java.util.concurrent.CountDownLatch(1)).countDown();
    }

    private java.util.concurrent.CountDownLatch started(String eventId) {
        return running.computeIfAbsent(eventId, id -> new java.util.concurrent.CountDownLatch(1));
    }

    private static void await(java.util.concurrent.CountDownLatch latch) {
        try {
            if (!latch.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new IllegalStateException("a held event was never released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The scripted duration of the handler's own work ({@code sleepMs}, {@code touchPauseMs}): a slow handler
     * is what those scenarios are about, inside its transaction. Nothing waits on it; tests synchronise with a
     * held event ({@code hold}, {@link #release}) or on the tables.
     */
    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
