package dev.txinbox.ordering;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * The parked events of one stream as a transaction sees them: those parked before it (read once) and those
 * it parked itself, lowest sequence first (the earliest received first among equals). Draining consumes them
 * from the front while they form an unbroken run behind the stream's position; what the drain decided is
 * handed back, not written, so that the inbox records every entry's state in one statement at the end.
 */
public final class ParkedRun {

    /** A parked event: its inbox row, its message id and sequence, and its body (to apply it). */
    public record Parked(long id, String messageId, long sequence, String body) {
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

    /** Applies one parked event; {@link Applied.Kind#STALE} is the drain's own verdict, never the applier's. */
    @FunctionalInterface
    public interface Applier {
        Applied apply(Parked parked);
    }

    /** A parked event the drain reached, and its fate. */
    public record Settled(Parked parked, Applied applied) {
    }

    /** How far a drain got, and what it settled on the way, in order. */
    public record Drained(long reached, List<Settled> settled) {
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

    /**
     * Applies the parked successors of {@code last}, in order, while they form an unbroken run. A rejected
     * successor still counts as consumed. Parked events the stream has moved past (another event with the same
     * sequence was applied) can never apply: they become stale instead of waiting forever. A successor that
     * fails stops the drain where it is, and the stream waits at it until the next drain tries it again.
     */
    public Drained drain(long last, Applier applier) {
        List<Settled> settled = new ArrayList<>();
        while (!waiting.isEmpty()) {
            Parked next = waiting.first();
            if (next.sequence() <= last) {
                waiting.pollFirst();
                settled.add(new Settled(next, Applied.OVERTAKEN));
                continue;
            }
            if (next.sequence() != last + 1) {
                break; // another gap: the rest waits for it
            }
            Applied applied = applier.apply(next);
            settled.add(new Settled(next, applied));
            if (applied.kind() == Applied.Kind.FAILED) {
                break;
            }
            waiting.pollFirst();
            last++;
        }
        return new Drained(last, settled);
    }
}
