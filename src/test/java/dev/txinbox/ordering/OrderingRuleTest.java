package dev.txinbox.ordering;

import static dev.txinbox.ordering.OrderingRule.Decision.APPLY;
import static dev.txinbox.ordering.OrderingRule.Decision.PARK;
import static dev.txinbox.ordering.OrderingRule.Decision.STALE;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The ordering rule on its own: what the last consumed sequence says about the next event. */
class OrderingRuleTest {

    @Test
    void theFirstEventOfANewStreamIsSequenceOne() {
        assertEquals(APPLY, OrderingRule.decide(0, 1));
        assertEquals(PARK, OrderingRule.decide(0, 2), "sequence 1 has not come yet");
    }

    @Test
    void exactlyTheNextOneApplies() {
        assertEquals(APPLY, OrderingRule.decide(41, 42));
    }

    @Test
    void anythingAtOrBelowTheLastIsStaleNeverAppliedTwice() {
        assertEquals(STALE, OrderingRule.decide(5, 5));
        assertEquals(STALE, OrderingRule.decide(5, 1));
    }

    @Test
    void aGapOfAnySizeParksInsteadOfDropping() {
        assertEquals(PARK, OrderingRule.decide(5, 7));
        assertEquals(PARK, OrderingRule.decide(5, Long.MAX_VALUE));
    }

    @Test
    void theLargestSequencesStillCompareExactly() {
        assertEquals(APPLY, OrderingRule.decide(Long.MAX_VALUE - 1, Long.MAX_VALUE));
        assertEquals(STALE, OrderingRule.decide(Long.MAX_VALUE, Long.MAX_VALUE));
    }
}
