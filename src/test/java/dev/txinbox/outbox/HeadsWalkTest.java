package dev.txinbox.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.txinbox.outbox.OutboxStore.Next;
import dev.txinbox.outbox.OutboxStore.Page;

/** When the relay reads its next page at once, and when it waits for a commit or its poll. No database. */
class HeadsWalkTest {

    @Test
    void aWholeWalkInOneShortPageThatPublishedNothingWaits() {
        assertEquals(Next.WHEN_RUNG, new Page(List.of(), true, true).next(false));
    }

    @Test
    void somethingPublishedMayHaveMadeItsSuccessorDue() {
        assertEquals(Next.SOON, new Page(List.of(), true, true).next(true));
    }

    @Test
    void aFullPageHasMoreBehindIt() {
        assertEquals(Next.AT_ONCE, new Page(List.of(), true, false).next(false));
        assertEquals(Next.AT_ONCE, new Page(List.of(), true, false).next(true));
    }

    @Test
    void aWalkThatBeganMidWayGoesBackToTheFirstAggregate() {
        assertEquals(Next.AT_ONCE, new Page(List.of(), false, true).next(false));
    }
}
