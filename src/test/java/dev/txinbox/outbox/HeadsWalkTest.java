package dev.txinbox.outbox;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.txinbox.outbox.OutboxStore.Page;

/** When the relay reads its next page at once, and when it waits for a commit or its poll. No database. */
class HeadsWalkTest {

    @Test
    void aWholeWalkInOneShortPageThatPublishedNothingWaits() {
        assertFalse(new Page(List.of(), true, true).more(false));
    }

    @Test
    void somethingPublishedMayHaveMadeItsSuccessorDue() {
        assertTrue(new Page(List.of(), true, true).more(true));
    }

    @Test
    void aFullPageHasMoreBehindIt() {
        assertTrue(new Page(List.of(), true, false).more(false));
    }

    @Test
    void aWalkThatBeganMidWayGoesBackToTheFirstAggregate() {
        assertTrue(new Page(List.of(), false, true).more(false));
    }
}
