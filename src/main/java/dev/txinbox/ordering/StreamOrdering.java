package dev.txinbox.ordering;

import java.util.Collection;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * Per-aggregate ordering, in one place: the stream locks, the decision ({@link OrderingRule}), the drain of the
 * parked events behind a stream ({@link ParkedRun}) and the streams' positions. Knows nothing of handlers and
 * reads no inbox row: the inbox hands it the parked events it found, applies what a drain hands out, and records
 * what the drain settled. Everything here runs inside the caller's transaction, with the streams locked by
 * {@link #lock} first.
 */
@ApplicationScoped
public class StreamOrdering {

    /** What a gap release did. */
    public record GapRelease(long lastBefore, long skippedFrom, long skippedTo, long lastAfter) {
    }

    private final StreamStateRepository streams;

    StreamOrdering(StreamStateRepository streams) {
        this.streams = streams;
    }

    /**
     * Locks the streams (sorted, in one statement, so that overlapping batches never deadlock on them)
     * and returns each one's last consumed sequence.
     */
    public Map<String, Long> lock(String consumer, Collection<String> aggregateIds) {
        return streams.lock(consumer, aggregateIds);
    }

    public OrderingRule.Decision decide(long last, long sequence) {
        return OrderingRule.decide(last, sequence);
    }

    /** Records how far each stream got, in one statement. */
    public void advance(String consumer, Map<String, Long> lastSequences) {
        streams.advance(consumer, lastSequences);
    }
}
