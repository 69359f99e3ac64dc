package dev.txinbox.ordering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.txinbox.ordering.ParkedRun.Applied;
import dev.txinbox.ordering.ParkedRun.Parked;

/** Draining a stream's parked events, on its own: what applies, in which order, and where it stops. */
class ParkedRunTest {

    private final List<Long> applied = new ArrayList<>();

    private static Parked parked(long id, long sequence) {
        return new Parked(id, "evt-" + id, sequence, "{}", null);
    }

    /** Drains the run from {@code last} as the inbox does: applies what the drain hands out, says how it went. */
    private ParkedRun.Drain drain(ParkedRun run, long last, Set<Long> failing, Set<Long> rejecting) {
        ParkedRun.Drain drain = run.drain(last);
        for (Parked p = drain.next(); p != null; p = drain.next()) {
            applied.add(p.sequence());
            drain.settle(failing.contains(p.id()) ? new Applied(Applied.Kind.FAILED, "boom")
                    : rejecting.contains(p.id()) ? new Applied(Applied.Kind.REJECTED, "no")
                            : new Applied(Applied.Kind.APPLIED, null));
        }
        return drain;
    }

    private static List<String> fates(ParkedRun.Drain drained) {
        return drained.settled().stream().map(s -> s.parked().id() + ":" + s.applied().kind()).toList();
    }

    @Test
    void anUnbrokenRunAppliesInSequenceOrderWhateverOrderItWasParkedIn() {
        ParkedRun run = new ParkedRun(List.of(parked(10, 4), parked(11, 2)));
        run.add(parked(12, 3));
        ParkedRun.Drain drained = drain(run, 1, Set.of(), Set.of());
        assertEquals(4, drained.reached());
        assertEquals(List.of(2L, 3L, 4L), applied);
        assertEquals(List.of("11:APPLIED", "12:APPLIED", "10:APPLIED"), fates(drained));
    }

    @Test
    void aGapStopsTheDrainAndWhatIsBehindItWaits() {
        ParkedRun run = new ParkedRun(List.of(parked(1, 2), parked(2, 5)));
        ParkedRun.Drain drained = drain(run, 1, Set.of(), Set.of());
        assertEquals(2, drained.reached());
        assertEquals(List.of(2L), applied);
        // The same run, drained again once 3 and 4 came, goes on from where it stopped.
        run.add(parked(3, 3));
        run.add(parked(4, 4));
        assertEquals(5, drain(run, 2, Set.of(), Set.of()).reached());
        assertEquals(List.of(2L, 3L, 4L, 5L), applied);
        assertEquals(true, run.isEmpty());
    }

    @Test
    void aRejectedEventStillConsumesItsSequence() {
        ParkedRun run = new ParkedRun(List.of(parked(1, 2), parked(2, 3)));
        ParkedRun.Drain drained = drain(run, 1, Set.of(), Set.of(1L));
        assertEquals(3, drained.reached());
        assertEquals(List.of("1:REJECTED", "2:APPLIED"), fates(drained));
    }

    @Test
    void aFailedEventStopsTheDrainAndStaysForTheNextOne() {
        ParkedRun run = new ParkedRun(List.of(parked(1, 2), parked(2, 3)));
        ParkedRun.Drain drained = drain(run, 1, Set.of(1L), Set.of());
        assertEquals(1, drained.reached());
        assertEquals(List.of("1:FAILED"), fates(drained));
        assertEquals(3, drain(run, 1, Set.of(), Set.of()).reached(), "tried again by the next drain");
    }

    @Test
    void anEventTheStreamHasMovedPastBecomesStaleInsteadOfWaitingForever() {
        // Sequence 2 parked twice (a producer re-sent it under another id): the first applies, the second never can.
        ParkedRun run = new ParkedRun(List.of(parked(1, 2), parked(2, 2), parked(3, 3)));
        ParkedRun.Drain drained = drain(run, 1, Set.of(), Set.of());
        assertEquals(3, drained.reached());
        assertEquals(List.of("1:APPLIED", "2:STALE", "3:APPLIED"), fates(drained));
        assertEquals(List.of(2L, 3L), applied);
    }

    @Test
    void aDrainHandsOutOneEventAtATimeAndWaitsToHearHowItWent() {
        ParkedRun run = new ParkedRun(List.of(parked(1, 2), parked(2, 3)));
        ParkedRun.Drain drain = run.drain(1);
        assertEquals(2, drain.next().sequence());
        assertThrows(IllegalStateException.class, drain::next, "the next one only after this one is settled");
        drain.settle(new Applied(Applied.Kind.APPLIED, null));
        assertEquals(3, drain.next().sequence());
    }
}
