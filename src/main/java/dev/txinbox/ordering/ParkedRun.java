package dev.txinbox.ordering;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * The parked events of one stream as a transaction sees them: those parked before it (handed in once, as the inbox
 * read them) and those it parked itself, lowest sequence first (the earliest received first among equals). A
 * {@link Drain} consumes them from the front while they form an unbroken run behind the stream's position. The
 * caller applies each event the drain hands it and says how that went, so control never comes back up here from
 * a handler; what the drain decided is handed back, not written, so that the inbox records every entry's state in
 * one statement at the end.
 */
public final class ParkedRun {

    /**
     * A parked event: its inbox row, its message id and sequence, its body (to apply it), and the traceparent kept
     * with its row (null if untraced), for the log lines about it.
     */
    public record Parked(long id, String messageId, long sequence, String body, String traceparent) {
    }

    /** What became of a parked event the drain reached. */
    public record Applied(Kind kind, String detail) {

        public enum Kind {
            /** It took effect. */
            APPLIED,
            /** Refused for a business reason: it still consumes its sequence, or the stream would stall. */
            REJECTED,
            /** It can never apply: another event with its sequence was applied first. */
            STALE,
            /** It failed and took no effect: it stays parked with the error, and the stream waits at it. */
            FAILED
        }

        static final Applied OVERTAKEN = new Applied(Kind.STALE, "another event with this sequence was applied first");
    }

    /** A parked event the drain reached, and its fate. */
    public record Settled(Parked parked, Applied applied) {
    }

    /**
     * One drain of the run from a stream position: {@link #next} hands out the successor to apply, {@link #settle}
     * takes its fate. A rejected successor still counts as consumed. Parked events the stream has moved past
     * (another event with the same sequence was applied) can never apply: they become stale instead of waiting
     * forever. A successor that fails stops the drain where it is, and the stream waits at it until the next
     * drain tries it again.
     */
    public final class Drain {

        private final List<Settled> settled = new ArrayList<>();
        private long reached;
        private Parked pending;
        private boolean stopped;

        private Drain(long from) {
            this.reached = from;
        }

        /** The next event to apply, or null when the stream must wait: a gap, a failure, or nothing parked. */
        public Parked next() {
            if (pending != null) {
                throw new IllegalStateException("parked sequence " + pending.sequence() + " is not settled yet");
            }
            while (!stopped && !waiting.isEmpty()) {
                Parked head = waiting.first();
                if (head.sequence() > reached) {
                    if (head.sequence() == reached + 1) {
                        pending = head;
                    }
                    return pending; // beyond the next one: another gap, the rest waits for it
                }
                waiting.pollFirst();
                settled.add(new Settled(head, Applied.OVERTAKEN));
            }
            return null;
        }

        /** What became of the event {@link #next} handed out ({@link Applied.Kind#STALE} is never the caller's). */
        public void settle(Applied applied) {
            if (pending == null) {
                throw new IllegalStateException("no parked event handed out to settle");
            }
            settled.add(new Settled(pending, applied));
            if (applied.kind() == Applied.Kind.FAILED) {
                stopped = true;
            } else {
                waiting.remove(pending);
                reached++;
            }
            pending = null;
        }

        /** How far the stream got. */
        public long reached() {
            return reached;
        }

        /** The parked events the drain reached, in order, with their fates. */
        public List<Settled> settled() {
            return settled;
        }
    }

    private final TreeSet<Parked> waiting = new TreeSet<>(
            Comparator.comparingLong(Parked::sequence).thenComparingLong(Parked::id));

    public ParkedRun(List<Parked> parkedBefore) {
        waiting.addAll(parkedBefore);
    }

    public void add(Parked parked) {
        waiting.add(parked);
    }

    public boolean isEmpty() {
        return waiting.isEmpty();
    }

    /** Starts draining the parked successors of {@code last}; see {@link Drain}. */
    public Drain drain(long last) {
        return new Drain(last);
    }
}
