package dev.txinbox.inbox;

import static dev.txinbox.support.Events.ledger;
import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.support.JsonLogLines;
import dev.txinbox.support.LedgerConsumer;
import dev.txinbox.support.ServiceTest;
import dev.txinbox.support.Settings;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The batch as the unit of work, against a real PostgreSQL: one transaction for many messages, with no
 * savepoint; a failure rolls the transaction back and the batch runs again without what failed. Driven through
 * {@link Inbox#receive(List, TxinboxConfig.Retry)} as the SQS pipeline drives it, with the test-only ledger
 * consumer scripting failures.
 */
@QuarkusTest
class InboxBatchTest extends ServiceTest {

    private static final TxinboxConfig.Retry RETRY = Settings.retry(Duration.ofSeconds(1), Duration.ofSeconds(1), 5);

    @Inject
    Inbox inbox;

    @Test
    void aFailingMessageInTheMiddleOfABatchFailsAloneAndHoldsBackItsGroupsSuccessors() {
        String groupA = unique("a"), groupB = unique("b");
        String a1 = unique("a1"), a2 = unique("a2"), a3 = unique("a3"), b1 = unique("b1"), b2 = unique("b2");
        List<InboxResult> results = inbox.receive(List.of(
                message(groupA, ledger(a1, groupA, "{}")),
                message(groupB, ledger(b1, groupB, "{}")),
                message(groupA, ledger(a2, groupA, "{\"failTimes\":1}")),
                message(groupA, ledger(a3, groupA, "{}")),
                message(groupB, ledger(b2, groupB, "{}"))), RETRY);

        assertEquals(List.of(Outcome.PROCESSED, Outcome.PROCESSED, Outcome.RETRIED, Outcome.RETRIED, Outcome.PROCESSED),
                results.stream().map(InboxResult::outcome).toList());
        assertEquals(1, results.get(2).attempts(), "the failure counts one attempt");
        assertFalse(results.get(2).heldBack());
        assertTrue(results.get(3).heldBack(), "a3 must not overtake a2");
        assertEquals(0, results.get(3).attempts(), "held back, not tried: no attempt counted");

        assertEquals(List.of(a1, b1, b2), ledgerEvents(a1, a2, a3, b1, b2), "the others committed, in order");
        assertEquals("FAILED", db.inboxStatus(LedgerConsumer.CONSUMER, a2));
        assertEquals(1, db.count("select count(*) from inbox_attempts where message_id = ?", a2));
        assertEquals(0, db.count("select count(*) from inbox_messages where message_id = ?", a3),
                "the held-back message's claim was given back");

        // The retry comes, then its successor: both apply once, in order.
        List<InboxResult> again = inbox.receive(List.of(message(groupA, ledger(a2, groupA, "{\"failTimes\":1}")),
                message(groupA, ledger(a3, groupA, "{}"))), RETRY);
        assertEquals(List.of(Outcome.PROCESSED, Outcome.PROCESSED), again.stream().map(InboxResult::outcome).toList());
        assertEquals(List.of(a1, b1, b2, a2, a3), ledgerEvents(a1, a2, a3, b1, b2));
    }

    @Test
    void aHandlersConstraintViolationIsAttributedToItsOwnMessage() {
        String ref = unique("ref"), group = unique("g"), other = unique("o");
        String first = unique("first"), second = unique("second"), third = unique("third");
        // The second insert of the same ref fails at flush, inside Hibernate: that dooms the whole
        // transaction, so the batch runs again without it.
        List<InboxResult> results = inbox.receive(List.of(
                message(group, ledger(first, group, "{\"ref\":\"" + ref + "\"}")),
                message(other, ledger(second, other, "{\"ref\":\"" + ref + "\"}")),
                message(unique("x"), ledger(third, "x", "{}"))), RETRY);

        assertEquals(Outcome.PROCESSED, results.get(0).outcome());
        assertEquals(Outcome.RETRIED, results.get(1).outcome());
        assertTrue(results.get(1).detail().contains("ledger_refs_pkey"), results.get(1).detail());
        assertEquals(Outcome.PROCESSED, results.get(2).outcome());
        assertEquals(first, db.row("select event_id from ledger_refs where ref = ?", ref).get("event_id"));
        assertEquals("FAILED", db.inboxStatus(LedgerConsumer.CONSUMER, second));
        assertEquals(List.of(first, third), ledgerEvents(first, second, third));
    }

    @Test
    void aFailureInTheMiddleOfA64MessageBatchCostsOnlyItsMessageAndItsGroupsSuccessors() {
        int groups = 8, perGroup = 8, failing = 30;
        List<String> groupIds = new ArrayList<>(), ids = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            groupIds.add(unique("g" + g));
        }
        List<IncomingMessage> batch = new ArrayList<>();
        for (int i = 0; i < groups * perGroup; i++) {
            String group = groupIds.get(i % groups), id = unique("m" + i);
            ids.add(id);
            batch.add(message(group, ledger(id, group, (long) (i / groups + 1), i == failing ? "{\"failTimes\":1}" : "{}")));
        }
        List<InboxResult> results = inbox.receive(batch, RETRY);

        String failedGroup = groupIds.get(failing % groups);
        for (int i = 0; i < batch.size(); i++) {
            InboxResult r = results.get(i);
            boolean sameGroupLater = i > failing && i % groups == failing % groups;
            if (i == failing) {
                assertEquals(Outcome.RETRIED, r.outcome());
                assertEquals(1, r.attempts(), "the failure counts one attempt");
                assertFalse(r.heldBack());
            } else if (sameGroupLater) {
                assertEquals(Outcome.RETRIED, r.outcome(), "message " + i);
                assertTrue(r.heldBack(), "message " + i + " must not overtake the failed one");
                assertEquals(0, r.attempts());
            } else {
                assertEquals(Outcome.PROCESSED, r.outcome(), "message " + i + ": " + r.detail());
            }
        }
        Object[] all = ids.toArray(String[]::new);
        // Every committed message applied exactly once, though the first pass applied some of them and rolled back.
        assertEquals(groups * perGroup - 1 - (perGroup - 1 - failing / groups), db.count(
                "select count(*) from ledger_entries where event_id = any(?)", (Object) all));
        assertEquals(0, db.count("select count(*) from (select event_id from ledger_entries where event_id = any(?)"
                + " group by event_id having count(*) > 1) twice", (Object) all));
        assertEquals(List.of(), ledgerEvents(ids.get(failing)));
        assertEquals("FAILED", db.inboxStatus(LedgerConsumer.CONSUMER, ids.get(failing)));
        assertEquals(1, db.count("select count(*) from inbox_attempts where message_id = ?", ids.get(failing)));
        assertEquals(failing / groups, db.count("select last_sequence from stream_state where aggregate_id = ?", failedGroup));
        for (int g = 0; g < groups; g++) {
            if (g != failing % groups) {
                assertEquals(perGroup, db.count("select last_sequence from stream_state where aggregate_id = ?",
                        groupIds.get(g)));
            }
        }

        // The retried one and its group's successors come back: all apply, once and in order.
        List<IncomingMessage> again = new ArrayList<>();
        for (int i = failing; i < batch.size(); i += groups) {
            again.add(batch.get(i));
        }
        assertTrue(inbox.receive(again, RETRY).stream().allMatch(r -> r.outcome() == Outcome.PROCESSED));
        List<String> groupOrder = new ArrayList<>();
        for (int i = failing % groups; i < batch.size(); i += groups) {
            groupOrder.add(ids.get(i));
        }
        assertEquals(groupOrder, ledgerEvents(groupOrder.toArray(String[]::new)));
    }

    @Test
    void aBatchWhoseRerunFailsAgainCountsAnAttemptOnlyForEachFailedMessage() {
        String a = unique("a"), b = unique("b"), c = unique("c"), d = unique("d"), e = unique("e");
        // b fails in the first pass; d, after it, is only reached (and fails) in the second.
        List<InboxResult> results = inbox.receive(List.of(
                message(unique("ga"), ledger(a, "ga", "{}")),
                message(unique("gb"), ledger(b, "gb", "{\"failTimes\":1}")),
                message(unique("gc"), ledger(c, "gc", "{}")),
                message(unique("gd"), ledger(d, "gd", "{\"failTimes\":1}")),
                message(unique("ge"), ledger(e, "ge", "{}"))), RETRY);

        assertEquals(List.of(Outcome.PROCESSED, Outcome.RETRIED, Outcome.PROCESSED, Outcome.RETRIED, Outcome.PROCESSED),
                results.stream().map(InboxResult::outcome).toList());
        assertEquals(1, results.get(1).attempts());
        assertEquals(1, results.get(3).attempts());
        assertEquals(List.of(a, c, e), ledgerEvents(a, b, c, d, e));
        assertEquals(1, db.count("select count(*) from inbox_attempts where message_id = ?", b));
        assertEquals(1, db.count("select count(*) from inbox_attempts where message_id = ?", d));
        assertEquals(0, db.count("select count(*) from inbox_attempts where message_id = any(?)", (Object) new String[] { a, c, e }));
    }

    @Test
    void aConstraintViolationFoundOnlyAtAFlushIsAttributedToTheMessageWhoseWriteItWas() {
        String taken = unique("ref"), alsoTaken = unique("ref"), free = unique("ref");
        String owner = unique("owner"), otherOwner = unique("owner");
        assertEquals(Outcome.PROCESSED, inbox.receive(message(unique("g"), ledger(owner, "g0",
                "{\"entityRef\":\"" + taken + "\"}")), RETRY).outcome());
        assertEquals(Outcome.PROCESSED, inbox.receive(message(unique("g"), ledger(otherOwner, "g0",
                "{\"entityRef\":\"" + alsoTaken + "\"}")), RETRY).outcome());
        String first = unique("first"), second = unique("second"), third = unique("third"), fourth = unique("fourth");
        String fifth = unique("fifth");
        // second persists a ref that is taken: its insert fails when Hibernate flushes it, which is inside third's
        // handler (its native query flushes first), not in second's. fifth does the same, last in the batch: its
        // insert fails at the batch's one flush, inside nobody's handler.
        List<InboxResult> results = inbox.receive(List.of(
                message(unique("g"), ledger(first, "g1", "{\"entityRef\":\"" + free + "\"}")),
                message(unique("g"), ledger(second, "g2", "{\"entityRef\":\"" + taken + "\"}")),
                message(unique("g"), ledger(third, "g3", "{}")),
                message(unique("g"), ledger(fourth, "g4", "{}")),
                message(unique("g"), ledger(fifth, "g5", "{\"entityRef\":\"" + alsoTaken + "\"}"))), RETRY);

        assertEquals(List.of(Outcome.PROCESSED, Outcome.RETRIED, Outcome.PROCESSED, Outcome.PROCESSED, Outcome.RETRIED),
                results.stream().map(InboxResult::outcome).toList(), results.toString());
        assertTrue(results.get(1).detail().contains("ledger_refs_pkey"), results.get(1).detail());
        assertTrue(results.get(4).detail().contains("ledger_refs_pkey"), results.get(4).detail());
        assertEquals(first, db.row("select event_id from ledger_refs where ref = ?", free).get("event_id"));
        assertEquals(owner, db.row("select event_id from ledger_refs where ref = ?", taken).get("event_id"));
        assertEquals(otherOwner, db.row("select event_id from ledger_refs where ref = ?", alsoTaken).get("event_id"));
        assertEquals(List.of(first, third, fourth), ledgerEvents(first, second, third, fourth, fifth));
        assertEquals("FAILED", db.inboxStatus(LedgerConsumer.CONSUMER, second));
        assertEquals("FAILED", db.inboxStatus(LedgerConsumer.CONSUMER, fifth));
        assertEquals("PROCESSED", db.inboxStatus(LedgerConsumer.CONSUMER, third));
        assertEquals(0, db.count("select count(*) from inbox_attempts where message_id = ?", third), "third is not blamed");
    }

    @Test
    void twoMessagesOfOneGroupInOneBatchApplyInOrder() {
        String group = unique("ord");
        List<String> ids = new ArrayList<>();
        List<IncomingMessage> batch = new ArrayList<>();
        for (long seq = 1; seq <= 4; seq++) {
            ids.add(unique("e" + seq));
            batch.add(message(group, ledger(ids.get(ids.size() - 1), group, seq, "{}")));
        }
        List<InboxResult> results = inbox.receive(batch, RETRY);
        assertTrue(results.stream().allMatch(r -> r.outcome() == Outcome.PROCESSED), results.toString());
        assertEquals(ids, ledgerEvents(ids.toArray(String[]::new)));
        assertEquals(4, db.count("select last_sequence from stream_state where aggregate_id = ?", group));
    }

    @Test
    void aRedeliveredCopyAndItsOriginalInOneBatchApplyOnce() {
        String group = unique("g"), eventId = unique("evt");
        String body = ledger(eventId, group, "{}");
        List<InboxResult> results = inbox.receive(List.of(message(group, body), message(group, body)), RETRY);
        assertEquals(List.of(Outcome.PROCESSED, Outcome.DUPLICATE), results.stream().map(InboxResult::outcome).toList());
        assertEquals(1, db.count("select count(*) from ledger_entries where event_id = ?", eventId));
        assertEquals(1, db.count("select count(*) from inbox_messages where message_id = ?", eventId));
    }

    @Test
    void aThrowingParkedSuccessorLeavesItsGapFillerCommitted() {
        String group = unique("ord"), one = unique("s1"), two = unique("s2"), three = unique("s3");
        // Sequence 2 arrives first and parks; it will throw the first time it is applied.
        String traceId = "7a1b2c3d4e5f60718293a4b5c6d7e8f9";
        IncomingMessage parked = new IncomingMessage(LedgerConsumer.CONSUMER, ledger(two, group, 2L,
                "{\"failTimes\":1}"), null, new MessageSource("ledger.fifo", unique("sqs"), group, null, 1,
                        "00-" + traceId + "-0102030405060708-01"));
        assertEquals(Outcome.PARKED, inbox.receive(parked, RETRY).outcome());
        // Sequence 1 fills the gap; draining 2 throws. Only 2's work is undone: 1 stands.
        try (JsonLogLines lines = JsonLogLines.of(InboxBatch.class)) {
            assertEquals(Outcome.PROCESSED, inbox.receive(message(group, ledger(one, group, 1L, "{}")), RETRY)
                    .outcome());
            // The warning is about 2, whose message is long gone: its event id and its row's trace id name it.
            JsonNode mdc = lines.first("failed when unparked", group).path("mdc");
            assertEquals(two, mdc.path("eventId").asText(), mdc.toString());
            assertEquals(traceId, mdc.path("traceId").asText(), mdc.toString());
        }
        assertEquals("PROCESSED", db.inboxStatus(LedgerConsumer.CONSUMER, one));
        assertEquals(List.of(one), ledgerEvents(one, two, three));
        assertEquals("PARKED", db.inboxStatus(LedgerConsumer.CONSUMER, two));
        assertEquals(2, db.count("select attempt_count from inbox_messages where message_id = ?", two));
        assertTrue(((String) db.row("select error_text from inbox_messages where message_id = ?", two).get("error_text"))
                .contains("scripted failure 1"));
        assertEquals(1, db.count("select last_sequence from stream_state where aggregate_id = ?", group));

        // The next event of the stream tries the waiting one again; now both apply, in order.
        assertEquals(Outcome.PARKED, inbox.receive(message(group, ledger(three, group, 3L, "{}")), RETRY).outcome());
        assertEquals(List.of(one, two, three), ledgerEvents(one, two, three));
        assertEquals(3, db.count("select last_sequence from stream_state where aggregate_id = ?", group));
    }

    @Test
    void twoInstancesMeetingTheSameEventsInOppositeOrdersApplyEachOnce() throws Exception {
        // Copies of the same events, as a redelivery after a visibility timeout gives, taken by two
        // instances at the same moment in opposite orders. The claim takes its locks in event-id order.
        List<List<IncomingMessage>> firstBatches = new ArrayList<>(), secondBatches = new ArrayList<>();
        List<String> all = new ArrayList<>();
        for (int round = 0; round < 4; round++) {
            List<IncomingMessage> batch = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String id = unique("copy");
                all.add(id);
                batch.add(message(unique("g"), ledger(id, "g", "{}")));
            }
            firstBatches.add(batch);
            List<IncomingMessage> reversed = new ArrayList<>(batch);
            Collections.reverse(reversed);
            secondBatches.add(reversed);
        }
        List<InboxResult> results = together(firstBatches, secondBatches);
        assertEquals(all.size(), results.stream().filter(r -> r.outcome() == Outcome.PROCESSED).count());
        assertEquals(all.size(), results.stream().filter(r -> r.outcome() == Outcome.DUPLICATE).count());
        Object[] ids = all.toArray(String[]::new);
        assertEquals(all.size(), db.count("select count(*) from ledger_entries where event_id = any(?)", (Object) ids));
        assertEquals(0, db.count("select count(*) from inbox_attempts where message_id = any(?)", (Object) ids));
    }

    @Test
    void twoInstancesWithOverlappingAggregatesLoseNoAttemptToADeadlock() throws Exception {
        // Each round, two instances take a batch at the same moment, and each handler bumps the same shared
        // counters, one instance in one order, the other in the opposite one. PostgreSQL breaks the deadlock
        // by failing one of the transactions: that must cost no attempt and lose nothing.
        int rounds = 4;
        List<String> keys = List.of(unique("k"), unique("k"), unique("k"));
        List<String> reversedKeys = new ArrayList<>(keys);
        Collections.reverse(reversedKeys);
        List<List<IncomingMessage>> firstBatches = new ArrayList<>(), secondBatches = new ArrayList<>();
        List<String> all = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            List<IncomingMessage> first = new ArrayList<>(), second = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                String a = unique("one"), b = unique("two");
                all.add(a);
                all.add(b);
                first.add(message(unique("g"), ledger(a, "g", "{\"touchPauseMs\":50,\"touch\":" + json(keys) + "}")));
                second.add(message(unique("g"), ledger(b, "g", "{\"touchPauseMs\":50,\"touch\":" + json(reversedKeys) + "}")));
            }
            firstBatches.add(first);
            secondBatches.add(second);
        }
        List<InboxResult> results = together(firstBatches, secondBatches);
        assertTrue(results.stream().allMatch(r -> r.outcome() == Outcome.PROCESSED),
                results.stream().filter(r -> r.outcome() != Outcome.PROCESSED).map(InboxResult::detail).toList().toString());
        Object[] ids = all.toArray(String[]::new);
        assertEquals(all.size(), db.count("select count(*) from ledger_entries where event_id = any(?)", (Object) ids));
        assertEquals(0, db.count("select count(*) from inbox_attempts where message_id = any(?)", (Object) ids),
                "no attempt was counted");
        assertEquals(0, db.count("select count(*) from inbox_messages where message_id = any(?) and attempt_count <> 1",
                (Object) ids));
        for (String key : keys) {
            assertEquals(rounds * 6, db.count("select n from ledger_counters where key = ?", key),
                    "every event bumped every counter exactly once");
        }
    }

    /** Two instances, each running its batches, round by round at the same moment. */
    private List<InboxResult> together(List<List<IncomingMessage>> first, List<List<IncomingMessage>> second)
            throws Exception {
        CyclicBarrier barrier = new CyclicBarrier(2);
        ExecutorService instances = Executors.newFixedThreadPool(2);
        try {
            CompletableFuture<List<InboxResult>> one = CompletableFuture.supplyAsync(() -> run(first, barrier), instances);
            CompletableFuture<List<InboxResult>> two = CompletableFuture.supplyAsync(() -> run(second, barrier), instances);
            List<InboxResult> results = new ArrayList<>(one.get());
            results.addAll(two.get());
            return results;
        } finally {
            instances.shutdownNow();
        }
    }

    private List<InboxResult> run(List<List<IncomingMessage>> batches, CyclicBarrier together) {
        List<InboxResult> results = new ArrayList<>();
        for (List<IncomingMessage> batch : batches) {
            try {
                together.await();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            results.addAll(inbox.receive(batch, RETRY));
        }
        return results;
    }

    private static String json(List<String> keys) {
        return "[\"" + String.join("\",\"", keys) + "\"]";
    }

    /** The given events that reached the ledger, in the order they were applied. */
    private List<String> ledgerEvents(String... eventIds) {
        return db.rows("select event_id from ledger_entries where event_id = any(?) order by id", (Object) eventIds)
                .stream().map(r -> (String) r.get("event_id")).toList();
    }

    private static IncomingMessage message(String group, String body) {
        return new IncomingMessage(LedgerConsumer.CONSUMER, body, null,
                new MessageSource("ledger.fifo", unique("sqs"), group, null, 1));
    }
}
