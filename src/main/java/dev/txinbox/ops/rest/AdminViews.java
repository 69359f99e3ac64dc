package dev.txinbox.ops.rest;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.txinbox.inbox.InboxAttempt;
import dev.txinbox.inbox.InboxMessage;
import dev.txinbox.ops.metrics.InboxStatistics;
import io.quarkus.runtime.annotations.RegisterForReflection;

/** The JSON shapes of the admin API (registered for reflection: Jackson reads them in a native build too). */
@RegisterForReflection(targets = { AdminViews.Entry.class, AdminViews.Attempt.class, AdminViews.EntryDetail.class,
        AdminViews.Page.class, AdminViews.Replay.class, AdminViews.Redrive.class, AdminViews.GapRelease.class,
        AdminViews.ConsumerStats.class, AdminViews.Stats.class, InboxStatistics.ConsumerStats.class })
final class AdminViews {

    private AdminViews() {
    }

    record Entry(long id, String consumer, String messageId, String status, String type, String aggregateId,
            Long sequence, int attempts, String error, Instant receivedAt, Instant processedAt, Instant nextAttemptAt,
            String sourceQueue, String sourceMessageId, String groupId, Instant sentAt, Integer receiveCount) {

        static Entry of(InboxMessage m) {
            return new Entry(m.id, m.consumerName, m.messageId, m.status.name(), m.eventType, m.aggregateId,
                    m.sequenceNumber, m.attemptCount, m.errorText, m.receivedAt, m.processedAt, m.nextAttemptAt,
                    m.sourceQueue, m.sourceMessageId, m.sourceGroupId, m.sourceSentAt, m.receiveCount);
        }
    }

    record Attempt(int attempt, Instant failedAt, String error, String sourceMessageId, Integer receiveCount) {

        static Attempt of(InboxAttempt a) {
            return new Attempt(a.attempt, a.failedAt, a.errorText, a.sourceMessageId, a.receiveCount);
        }
    }

    record EntryDetail(Entry entry, String payload, String payloadHash, List<Attempt> attemptHistory) {
    }

    record Page(List<Entry> items, int page, int size, boolean hasMore) {
    }

    record Replay(String consumer, String messageId, String outcome, String detail, String statusNow) {
    }

    record Redrive(String consumer, String from, String to, int moved) {
    }

    record GapRelease(String consumer, String aggregateId, long lastBefore, long skippedFrom, long skippedTo,
            long lastAfter) {
    }

    record ConsumerStats(Map<String, Long> countsByStatus, InboxStatistics.ConsumerStats health) {
    }

    record Stats(Map<String, ConsumerStats> consumers) {
    }
}
