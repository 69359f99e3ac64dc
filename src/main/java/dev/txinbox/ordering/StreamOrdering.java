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

import org.jboss.logging.Logger;

/**
 * Per-aggregate ordering, in one place: the stream locks, the decision ({@link OrderingRule}), parking
 * an early event, draining the parked run behind an applied one, and releasing a gap by hand. Knows
 * nothing of handlers: whoever drains passes a {@link ParkedApplier}. Everything here runs inside the
 * caller's transaction, with the streams locked by {@link #lock} first.
 */
@ApplicationScoped
public class StreamOrdering {

    private static final Logger LOG = Logger.getLogger(StreamOrdering.class);

    /** What became of a parked event handed to a {@link ParkedApplier}. */
    public record Applied(Kind kind, String detail) {

        public enum Kind {
            /** It took effect. */
            APPLIED,
            /** Refused for a business reason: it still consumes its sequence, or the stream would stall. */
            REJECTED,
            /** It threw, and its work was rolled back: it stays parked, and the stream waits at it. */
            FAILED
        }
    }

    /** Applies one parked event, isolated from the rest of the transaction (its own savepoint). */
    @FunctionalInterface
    public interface ParkedApplier {
        Applied apply(long parkedId, String messageId, String body);
    }

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

    /** The streams among these that have parked events (those worth a drain after an apply). */
    public Set<String> withParked(String consumer, Collection<String> aggregateIds) {
        return parked.streamsWithParked(consumer, aggregateIds);
    }

    public OrderingRule.Decision decide(long last, long sequence) {
        return OrderingRule.decide(last, sequence);
    }

    public void park(long entryId, long last) {
        parked.park(entryId, "waiting for sequence " + (last + 1));
    }

    public void stale(long entryId, long last, long sequence) {
        parked.finish(entryId, "STALE", "sequence " + sequence + " is not after the last applied " + last);
    }

    /** Records how far each stream got, in one statement. */
    public void advance(String consumer, Map<String, Long> lastSequences) {
        streams.advance(consumer, lastSequences);
    }

    /**
     * Applies the parked successors of {@code last}, in order, while they form an unbroken run. A rejected
     * successor still counts as consumed. Parked events the stream has moved past (another event with the
     * same sequence was applied) can never apply: they become STALE instead of waiting forever. A successor
     * that fails stops the drain where it is: its own work is undone, the rest of the transaction (the event
     * that filled the gap) stands, and the stream waits at it until the next drain. Returns the last sequence
     * consumed.
     */
    public long drain(String consumer, String aggregateId, long last, ParkedApplier applier) {
        for (ParkedEvents.Parked entry : parked.parked(consumer, aggregateId)) {
            if (entry.sequence() <= last) {
                parked.finish(entry.id(), "STALE", "another event with this sequence was applied first");
                continue;
            }
            if (entry.sequence() != last + 1) {
                break; // another gap: the rest waits for it
            }
            Applied applied = applier.apply(entry.id(), entry.messageId(), entry.body());
            if (applied.kind() == Applied.Kind.FAILED) {
                parked.failed(entry.id(), applied.detail());
                LOG.warnf("%s/%s: parked sequence %d failed when unparked, the stream waits at it: %s", consumer,
                        aggregateId, entry.sequence(), applied.detail());
                break;
            }
            boolean ok = applied.kind() == Applied.Kind.APPLIED;
            parked.finish(entry.id(), ok ? "PROCESSED" : "REJECTED", applied.detail());
            last++;
            LOG.debugf("unparked %s/%s sequence %d: %s", consumer, aggregateId, last, ok ? "applied" : "rejected");
        }
        return last;
    }

    /** Streams with parked events (of one consumer, or of all when null), the longest-waiting first. */
    public List<ParkedStream> parkedStreams(String consumer, int limit) {
        return parked.streams(consumer, null, limit);
    }

    /** One stream's parked events, if it has any. */
    public Optional<ParkedStream> parkedStream(String consumer, String aggregateId) {
        return parked.streams(consumer, aggregateId, 1).stream().findFirst();
    }

    /**
     * Gives up waiting for the missing events of a stream: accepts its lowest parked sequence as the next
     * one, as if the gap before it had been filled, and drains from there. Empty when nothing is parked.
     */
    public Optional<GapRelease> releaseGap(String consumer, String aggregateId, ParkedApplier applier) {
        long last = lock(consumer, Set.of(aggregateId)).get(aggregateId);
        Optional<Long> next = parked.lowestAfter(consumer, aggregateId, last);
        if (next.isEmpty()) {
            return Optional.empty();
        }
        long reached = drain(consumer, aggregateId, next.get() - 1, applier);
        advance(consumer, Map.of(aggregateId, reached));
        return Optional.of(new GapRelease(last, last + 1, next.get() - 1, reached));
    }
}
