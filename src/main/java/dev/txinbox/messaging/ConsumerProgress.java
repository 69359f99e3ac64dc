package dev.txinbox.messaging;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The facts about one consumer's loop that health and lag are made of: when it last took or finished
 * a message, the send time of the message it committed last, and what is in flight now.
 */
public final class ConsumerProgress {

    /** By delivery: a delivery is equal only to itself, so two copies of one message are two entries. */
    private final Map<Delivery, Instant> inFlightSentAt = new ConcurrentHashMap<>();
    private volatile Instant lastTaken;
    private volatile Instant lastFinished;
    private volatile Instant lastCommittedSentAt;

    public void taken(Delivery delivery) {
        lastTaken = Instant.now();
        inFlightSentAt.put(delivery, delivery.sentAt() != null ? delivery.sentAt() : lastTaken);
    }

    void finished(Delivery delivery) {
        lastFinished = Instant.now();
        inFlightSentAt.remove(delivery);
    }

    void committed(Delivery delivery) {
        if (delivery.sentAt() != null) {
            lastCommittedSentAt = delivery.sentAt();
        }
    }

    public int inFlight() {
        return inFlightSentAt.size();
    }

    /** Send time of the oldest message taken but not finished. */
    public Optional<Instant> oldestInFlightSentAt() {
        return inFlightSentAt.values().stream().min(Instant::compareTo);
    }

    public Optional<Instant> lastTaken() {
        return Optional.ofNullable(lastTaken);
    }

    public Optional<Instant> lastFinished() {
        return Optional.ofNullable(lastFinished);
    }

    public Optional<Instant> lastCommittedSentAt() {
        return Optional.ofNullable(lastCommittedSentAt);
    }
}
