package dev.txinbox.ops.console;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

import dev.txinbox.inbox.InboxAttempt;
import dev.txinbox.inbox.InboxMessage;
import dev.txinbox.inbox.InboxReadModel;
import io.quarkus.qute.TemplateData;

/**
 * What the console's templates show, already shaped for display: times in UTC, durations in words, links
 * with their parameters encoded. Everything that comes from a message is plain text here and escaped by
 * Qute when rendered.
 */
final class ConsoleViews {

    private ConsoleViews() {
    }

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    /** The frame around every page: its title, the active tab, and the session (null on the sign-in page). */
    @TemplateData
    record Chrome(String title, String nav, String session, String csrf, String now) {
    }

    @TemplateData
    record Link(String href, String label) {
    }

    @TemplateData
    record KeyValue(String key, String value) {
    }

    @TemplateData
    record Check(String name, String status, List<KeyValue> data) {

        public boolean up() {
            return "UP".equals(status);
        }
    }

    /** One consumer on the overview. */
    @TemplateData
    /** A stage of a message's way through the service, over the last minute. */
    record StageRow(String stage, String messages, String mean, String p50, String p99) {

        static StageRow of(OutcomeHistory.StageTime t) {
            return new StageRow(t.stage().replace('_', ' '), Long.toString(t.messages()), millis(t.meanMs()),
                    millis(t.p50Ms()), millis(t.p99Ms()));
        }

        private static String millis(double ms) {
            return Double.isInfinite(ms) ? "> 60 s" : ms < 10 ? String.format("%.2f ms", ms) : String.format("%.0f ms", ms);
        }
    }

    record ConsumerCard(String name, String live, String liveWhy, String ready, String readyWhy, String lagNow,
            String oldestPending, String backlog, String inFlight, String deadLetterQueue, String dlqName,
            String parked, String oldestParked, String failed, String statsAt, List<KeyValue> counts,
            List<KeyValue> lagCheck, Plot outcomesPlot, Plot lagPlot, int minutesSampled,
            List<StageRow> stages, Link entries, Link redrive, Link streams, Link failures) {

        public boolean liveUp() {
            return "UP".equals(live);
        }

        public boolean readyUp() {
            return "UP".equals(ready);
        }
    }

    @TemplateData
    record EntryRow(String consumer, String messageId, String status, String type, String aggregateId, String sequence,
            int attempts, String error, String receivedAt, String href) {

        static EntryRow of(InboxMessage m) {
            return new EntryRow(m.consumerName, m.messageId, m.status.name(), text(m.eventType), text(m.aggregateId),
                    text(m.sequenceNumber), m.attemptCount, shortened(m.errorText, 160), time(m.receivedAt),
                    ConsoleViews.href("/entry", "consumer", m.consumerName, "id", m.messageId));
        }
    }

    /** The filter form of the entries page, as the user filled it in. */
    @TemplateData
    record EntryFilterForm(String consumer, String status, String aggregateId, String from, String to) {
    }

    @TemplateData
    record EntriesPage(EntryFilterForm filter, List<String> consumers, List<KeyValue> statuses, List<EntryRow> rows,
            int page, Link previous, Link next, String error) {
    }

    @TemplateData
    record AttemptRow(int attempt, String failedAt, String error, String sourceMessageId, String receiveCount) {

        static AttemptRow of(InboxAttempt a) {
            return new AttemptRow(a.attempt, time(a.failedAt), a.errorText, text(a.sourceMessageId),
                    text(a.receiveCount));
        }
    }

    @TemplateData
    record EntryDetail(EntryRow entry, String error, String body, boolean bodyIsJson, String payloadHash,
            List<KeyValue> source, List<KeyValue> times, List<AttemptRow> attempts, List<KeyValue> deadLetter,
            Link replay, Link stream, Trace trace) {
    }

    /** The trace of an entry's last delivery: its id, and where to see it when a trace view is configured (or null). */
    @TemplateData
    record Trace(String id, String href) {
    }

    @TemplateData
    record GroupRow(String consumer, String id, String cause, long failed, long dead, long total, String firstSeen,
            String lastSeen, List<Link> examples, Link retry) {

        static GroupRow of(InboxReadModel.FailureGroup g) {
            return new GroupRow(g.consumer(), g.id(), g.cause(), g.failed(), g.dead(), g.total(), time(g.firstSeen()),
                    time(g.lastSeen()), g.examples().stream()
                            .map(id -> new Link(href("/entry", "consumer", g.consumer(), "id", id), id)).toList(),
                    new Link(href("/retry-group", "consumer", g.consumer(), "group", g.id()), "Retry all…"));
        }
    }

    @TemplateData
    record StreamRow(String consumer, String aggregateId, long lastApplied, String parked, String missing,
            String waiting, String since, Link release, Link entries) {

        static StreamRow of(InboxReadModel.ParkedStream s, Instant now) {
            List<String> missing = s.missing().stream()
                    .map(r -> r[0] == r[1] ? Long.toString(r[0]) : r[0] + "–" + r[1]).toList();
            return new StreamRow(s.consumer(), s.aggregateId(), s.lastApplied(),
                    String.join(", ", s.parked().stream().map(String::valueOf).toList()), String.join(", ", missing),
                    duration(Duration.between(s.oldestParkedAt(), now)), time(s.oldestParkedAt()),
                    new Link(href("/release", "consumer", s.consumer(), "aggregateId", s.aggregateId()), "Release gap…"),
                    new Link(href("/entries", "consumer", s.consumer(), "aggregateId", s.aggregateId(), "status", "ANY"),
                            "entries"));
        }
    }

    @TemplateData
    record AuditRow(String at, String actor, String action, String consumer, String target, String outcome,
            String detail) {
    }

    /** The outbox at a glance: its queue, the relay's state, what is pending. */
    @TemplateData
    record OutboxSummary(String queue, String relay, String error, int ownedPartitions, int partitions, long pending,
            String oldestPending, long waitingStreams) {
    }

    /** An aggregate waiting at an event the broker refused. */
    @TemplateData
    record OutboxRow(String aggregateType, String aggregateId, String eventId, String type, long sequence, int attempts,
            String lastError, String nextAttempt, String waiting, long pendingBehind, Link retry, Link skip) {
    }

    /** The outcome of an action, as the page after it shows it. */
    @TemplateData
    record Result(String title, boolean ok, List<String> lines, List<Link> links) {
    }

    static String time(Instant instant) {
        return instant == null ? "" : TIME.format(instant);
    }

    static String age(double seconds) {
        return duration(Duration.ofMillis(Math.round(seconds * 1000)));
    }

    static String duration(Duration duration) {
        long s = Math.max(0, duration.toSeconds());
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return s / 60 + " min " + s % 60 + " s";
        }
        if (s < 86_400) {
            return s / 3600 + " h " + s % 3600 / 60 + " min";
        }
        return s / 86_400 + " d " + s % 86_400 / 3600 + " h";
    }

    /** A console link with its query parameters encoded: names and values alternate. */
    static String href(String path, String... parameters) {
        StringBuilder href = new StringBuilder("/console").append(path);
        char separator = '?';
        for (int i = 0; i + 1 < parameters.length; i += 2) {
            if (parameters[i + 1] == null || parameters[i + 1].isEmpty()) {
                continue;
            }
            href.append(separator).append(parameters[i]).append('=')
                    .append(URLEncoder.encode(parameters[i + 1], StandardCharsets.UTF_8));
            separator = '&';
        }
        return href.toString();
    }

    static String text(Object value) {
        return value == null ? "" : value.toString();
    }

    static String shortened(String text, int max) {
        return text == null || text.length() <= max ? text(text) : text.substring(0, max) + "…";
    }
}
