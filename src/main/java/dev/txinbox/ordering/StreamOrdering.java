package dev.txinbox.ordering;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * Per-aggregate ordering, in one place: the stream locks, the decision ({@link OrderingRule}), the parked
 * events behind a stream ({@link ParkedRun}, which drains them) and the streams' positions. Knows nothing of
 * handlers, and writes no inbox row: whoever drains passes the applier and records what the drain settled.
 * Everything here runs inside the caller's transaction, with the streams locked by {@link #lock} first.
 */
@ApplicationScoped
public class StreamOrdering {

    /** What a gap release did. */
    public record GapRelease(long lastBefore, long skippedFrom, long skippedTo, long lastAfter) {
    }

    /**
     * A stream with parked events, as an operator sees it: how far it got, what waits, and since when.
     *
     * @param lastApplied the last sequence consumed (applied, rejected or skipped by a release)
     * @param parked      the parked sequences, ascending (a sequence parked twice appears twice)
     */
    public record ParkedStream(String consumer, String aggregateId, long lastApplied, List<Long> parked,
            Instant oldestParkedAt) {

        /**
         * The sequences the stream waits for, as inclusive ranges {from, to}: from the one after the last
         * applied up to the highest parked, less those parked. The first range is what a release skips.
         */
        public List<long[]> missing() {
            List<long[]> ranges = new ArrayList<>();
            long expected = lastApplied + 1;
            for (long sequence : new TreeSet<>(parked)) {
                if (sequence > expected) {
                    ranges.add(new long[] { expected, sequence - 1 });
                }
                expected = Math.max(expected, sequence + 1);
            }
            return ranges;
        }
    }

    private final StreamStateRepository streams;
    private final ParkedEvents parked;

    StreamOrdering(StreamStateRepository streams, ParkedEvents parked) {
        this.streams = streams;
        this.parked = parked;
    }

    /**
     * Locks the streams (sorted, in one statement, so that overlapping batches never deadlock on them)
     * and returns each one's last consumed sequence.
     */
    public Map<String, Long> lock(String consumer, Collection<String> aggregateIds) {
        return streams.lock(consumer, aggregateIds);
    }

    /**
     * The locked streams among these that have parked events (those worth a drain). A statement of its own,
     * after {@link #lock}: one taken with the lock would read the parked rows as they were before the lock was
     * granted, and miss an event parked by the transaction the lock waited for.
     */
    public Set<String> withParked(String consumer, Collection<String> aggregateIds) {
        return parked.streamsWithParked(consumer, aggregateIds);
    }

    public OrderingRule.Decision decide(long last, long sequence) {
        return OrderingRule.decide(last, sequence);
    }

    /** The events parked behind a locked stream before this transaction, ready to drain. */
    public ParkedRun parkedRun(String consumer, String aggregateId) {
        return new ParkedRun(parked.parked(consumer, aggregateId));
    }

    /** Records how far each stream got, in one statement. */
    public void advance(String consumer, Map<String, Long> lastSequences) {
        streams.advance(consumer, lastSequences);
    }

    /** The lowest parked sequence of a locked stream above {@code last}: where a gap release resumes. */
    public Optional<Long> lowestParkedAfter(String consumer, String aggregateId, long last) {
        return parked.lowestAfter(consumer, aggregateId, last);
    }

    /** Streams with parked events (of one consumer, or of all when null), the longest-waiting first. */
    public List<ParkedStream> parkedStreams(String consumer, int limit) {
        return parked.streams(consumer, null, limit);
    }

    /** One stream's parked events, if it has any. */
    public Optional<ParkedStream> parkedStream(String consumer, String aggregateId) {
        return parked.streams(consumer, aggregateId, 1).stream().findFirst();
    }
}
