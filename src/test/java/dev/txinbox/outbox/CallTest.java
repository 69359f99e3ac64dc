package dev.txinbox.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import dev.txinbox.outbox.OutboxPublisher.Message;

/** How a page of heads is cut into SendMessageBatch calls, as SQS takes them. No broker. */
class CallTest {

    private static Head head(int n) {
        return new Head(UUID.randomUUID(), "order", "agg-" + n, "Step", Instant.EPOCH, "{}", 1, 0, 0, null);
    }

    private static List<Head> heads(int count) {
        return IntStream.range(0, count).mapToObj(CallTest::head).toList();
    }

    private static List<String> bodies(int count, int bytes) {
        return Collections.nCopies(count, "b".repeat(bytes));
    }

    private static List<Integer> sizes(Call.Plan plan) {
        return plan.calls().stream().map(c -> c.heads().size()).toList();
    }

    @Test
    void aCallCarriesAtMostTenEntriesInThePagesOrder() {
        List<Head> heads = heads(23);
        Call.Plan plan = Call.plan(heads, bodies(23, 10), 1_000);
        assertEquals(List.of(10, 10, 3), sizes(plan));
        assertEquals(heads, plan.calls().stream().flatMap(c -> c.heads().stream()).toList());
        assertTrue(plan.oversized().isEmpty());
    }

    @Test
    void aCallCarriesAtMostTheLimitInBytesCountedInUtf8() {
        // 300 bytes each, a limit of 1,000: three to a call. A two-byte character counts two.
        assertEquals(List.of(3, 3, 1), sizes(Call.plan(heads(7), bodies(7, 300), 1_000)));
        assertEquals(List.of(2, 2), sizes(Call.plan(heads(4), Collections.nCopies(4, "\u00e9".repeat(200)), 1_000)));
    }

    @Test
    void aBodyOverTheLimitByItselfGoesInNoCallAndTheOthersGoOn() {
        List<Head> heads = heads(3);
        Call.Plan plan = Call.plan(heads, List.of("small", "x".repeat(1_001), "small"), 1_000);
        assertEquals(List.of(heads.get(0), heads.get(2)), plan.calls().get(0).heads());
        assertEquals(1, plan.oversized().size());
        assertEquals(heads.get(1), plan.oversized().get(0).head());
        assertEquals("message of 1001 bytes exceeds the limit of 1000 bytes", plan.oversized().get(0).reason(1_000));
    }

    @Test
    void aBodyExactlyAtTheLimitIsSentAlone() {
        assertEquals(List.of(1, 1), sizes(Call.plan(heads(2), bodies(2, 1_000), 1_000)));
    }

    @Test
    void anEmptyPageMakesNoCall() {
        assertTrue(Call.plan(List.of(), List.of(), 1_000).calls().isEmpty());
    }

    @Test
    void entriesAreNamedByTheirIndexAndEachCanBeSentAlone() {
        Call call = Call.plan(heads(3), List.of("a", "b", "c"), 1_000).calls().get(0);
        assertEquals(List.of("0", "1", "2"), call.messages().stream().map(Message::entryId).toList());
        assertEquals(List.of("a", "b", "c"), call.messages().stream().map(Message::body).toList());
        List<Call> alone = call.alone();
        assertEquals(3, alone.size());
        assertEquals(List.of(call.heads().get(2)), alone.get(2).heads());
        assertEquals(List.of("c"), alone.get(2).bodies());
        assertEquals("0", alone.get(2).messages().get(0).entryId());
    }
}
