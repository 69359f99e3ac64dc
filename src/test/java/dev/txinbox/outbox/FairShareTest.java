package dev.txinbox.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

/** How relays split the partitions among themselves, and what one hands over when another joins. No database. */
class FairShareTest {

    private static TreeSet<Integer> partitions(int from, int to) {
        return IntStream.range(from, to).boxed().collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void aRelayAloneOwnsEveryPartition() {
        assertEquals(16, new FairShare(16, 1).share());
        assertTrue(new FairShare(16, 1).surplus(partitions(0, 16)).isEmpty());
    }

    @Test
    void theShareIsRoundedUpSoThatTogetherTheRelaysOwnEveryPartition() {
        assertEquals(8, new FairShare(16, 2).share());
        assertEquals(6, new FairShare(16, 3).share());
        assertEquals(4, new FairShare(16, 5).share());
        assertEquals(1, new FairShare(16, 40).share(), "more relays than partitions: one each, the rest idle");
    }

    @Test
    void aCountThatMissedThisRelayStillCountsIt() {
        assertEquals(1, new FairShare(16, 0).members());
        assertEquals(16, new FairShare(16, 0).share());
    }

    @Test
    void whenASecondRelayJoinsTheFirstHandsOverItsHighestPartitionsHighestFirst() {
        assertEquals(List.of(15, 14, 13, 12, 11, 10, 9, 8), new FairShare(16, 2).surplus(partitions(0, 16)));
    }

    @Test
    void aRelayWithinItsShareGivesNothingBackAndTakesUpToIt() {
        FairShare third = new FairShare(16, 3);
        assertTrue(third.surplus(partitions(10, 16)).isEmpty());
        assertTrue(third.wantsMore(5));
        assertFalse(third.wantsMore(6));
    }

    @Test
    void whenARelayLeavesTheOthersShareGrows() {
        FairShare before = new FairShare(16, 3), after = new FairShare(16, 2);
        assertFalse(before.wantsMore(6));
        assertTrue(after.wantsMore(6));
        assertFalse(after.wantsMore(8));
    }
}
