package dev.txinbox.ops.console;

import static dev.txinbox.ops.console.ConsoleViews.age;
import static dev.txinbox.ops.console.ConsoleViews.href;
import static dev.txinbox.ops.console.ConsoleViews.time;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.inbox.InboxStatus;
import dev.txinbox.inbox.Outcome;
import dev.txinbox.ops.admin.InboxRepairs;
import dev.txinbox.inbox.InboxReadModel;
import dev.txinbox.ops.metrics.InboxStatistics;
import io.quarkus.qute.TemplateInstance;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.health.SmallRyeHealthReporter;

/**
 * The console's first page: per consumer, its health as the probes see it, its lag, backlog and failures
 * ({@link InboxStatistics}), and the last hour's outcomes and lag as plots ({@link OutcomeHistory}).
 */
@Path("/console")
@Blocking
@Produces(MediaType.TEXT_HTML)
public class ConsoleOverview {

    private final InboxRepairs operations;
    private final InboxReadModel readModel;
    private final InboxStatistics statistics;
    private final OutcomeHistory history;
    private final SmallRyeHealthReporter health;
    private final ConsoleRequest request;
    private final TxinboxConfig.Console config;
    private final ConsoleClock clock;

    public ConsoleOverview(InboxRepairs operations, InboxReadModel readModel, InboxStatistics statistics,
            OutcomeHistory history, SmallRyeHealthReporter health, ConsoleRequest request, TxinboxConfig config, ConsoleClock clock) {
        this.operations = operations;
        this.readModel = readModel;
        this.statistics = statistics;
        this.history = history;
        this.health = health;
        this.request = request;
        this.config = config.console();
        this.clock = clock;
    }

    @GET
    public TemplateInstance overview() {
        JsonObject live = health.getLiveness().getPayload();
        JsonObject ready = health.getReadiness().getPayload();
        List<ConsoleViews.Check> liveChecks = checks(live), readyChecks = checks(ready);
        Map<String, Map<String, Long>> counts = readModel.countsByStatus();
        Instant now = clock.now();
        List<ConsoleViews.ConsumerCard> cards = new ArrayList<>();
        for (String consumer : operations.consumerNames()) {
            cards.add(card(consumer, now, liveChecks, readyChecks, counts.getOrDefault(consumer, Map.of())));
        }
        return ConsoleTemplates.overview(request.chrome("Overview", "overview"), live.getString("status", "?"),
                liveChecks, ready.getString("status", "?"), readyChecks, cards,
                ConsoleViews.duration(config.sampleEvery()));
    }

    private ConsoleViews.ConsumerCard card(String consumer, Instant now, List<ConsoleViews.Check> live,
            List<ConsoleViews.Check> ready, Map<String, Long> counts) {
        Optional<InboxStatistics.ConsumerStats> stats = statistics.latest(consumer);
        String prefix = consumer + ".";
        List<ConsoleViews.KeyValue> lagCheck = ready.stream().filter(c -> c.name().equals("inbox-lag"))
                .flatMap(c -> c.data().stream()).filter(kv -> kv.key().startsWith(prefix))
                .map(kv -> new ConsoleViews.KeyValue(kv.key().substring(prefix.length()), kv.value())).toList();
        String[] liveness = verdict(live, "consumer-loop", prefix + "down");
        String[] readiness = verdict(ready, "inbox-lag", prefix + "down");
        List<ConsoleViews.KeyValue> byStatus = new ArrayList<>();
        for (InboxStatus s : InboxStatus.values()) {
            byStatus.add(new ConsoleViews.KeyValue(s.name(), Long.toString(counts.getOrDefault(s.name(), 0L))));
        }
        List<OutcomeHistory.Minute> minutes = history.lastHour(consumer);
        List<Plot.Series> series = new ArrayList<>();
        for (Outcome outcome : Outcome.values()) {
            // Every outcome that happened in the hour, and processed always, so an idle hour still shows a line.
            if (outcome == Outcome.PROCESSED || minutes.stream().anyMatch(m -> m.count(outcome) > 0)) {
                series.add(new Plot.Series(outcome.label(), color(outcome), m -> m.count(outcome)));
            }
        }
        Plot outcomes = Plot.of("outcomes-" + consumer, "Outcomes per minute", "messages", true, now, minutes, series);
        Plot lag = Plot.of("lag-" + consumer, "Lag (highest in the minute)", "s", false, now, minutes,
                List.of(new Plot.Series("lag", "#0277bd", OutcomeHistory.Minute::maxLagSeconds)));
        var settings = operations.consumer(consumer);
        return new ConsoleViews.ConsumerCard(consumer, liveness[0], liveness[1], readiness[0], readiness[1],
                stats.map(s -> age(s.lagSeconds())).orElse("?"),
                stats.map(s -> age(s.oldestPendingAgeSeconds())).orElse("?"),
                stats.map(s -> s.backlog() == null ? "unknown" : s.backlog().toString()).orElse("?"),
                stats.map(s -> Integer.toString(s.inFlight())).orElse("?"),
                stats.map(s -> s.dlq() == null ? "unknown" : s.dlq().toString()).orElse("?"),
                settings.map(s -> s.dlq()).orElse(""),
                stats.map(s -> Long.toString(s.parked())).orElse("?"),
                stats.map(s -> s.parked() == 0 ? "" : age(s.oldestParkedAgeSeconds())).orElse(""),
                stats.map(s -> Long.toString(s.failed())).orElse("?"),
                stats.map(s -> time(s.at())).orElse(""), byStatus, lagCheck, outcomes, lag, minutes.size(),
                history.lastMinuteStages(consumer).stream().map(ConsoleViews.StageRow::of).toList(),
                new ConsoleViews.Link(href("/entries", "consumer", consumer), "entries"),
                new ConsoleViews.Link(href("/redrive", "consumer", consumer), "Redrive DLQ…"),
                new ConsoleViews.Link(href("/streams", "consumer", consumer), "streams"),
                new ConsoleViews.Link(href("/failures", "consumer", consumer), "failures"));
    }

    /**
     * UP or DOWN for one consumer, and why: DOWN when the check that speaks of consumers names this one, or
     * when another check of the same kind (the database, SQS, the channel) is DOWN for everyone.
     */
    private static String[] verdict(List<ConsoleViews.Check> checks, String consumerCheck, String downKey) {
        for (ConsoleViews.Check check : checks) {
            if (check.name().equals(consumerCheck)) {
                for (ConsoleViews.KeyValue kv : check.data()) {
                    if (kv.key().equals(downKey)) {
                        return new String[] { "DOWN", consumerCheck + ": " + kv.value() };
                    }
                }
            }
        }
        List<String> down = checks.stream().filter(c -> !c.up() && !c.name().equals(consumerCheck))
                .map(ConsoleViews.Check::name).toList();
        return down.isEmpty() ? new String[] { "UP", "" } : new String[] { "DOWN", "down: " + String.join(", ", down) };
    }

    private static List<ConsoleViews.Check> checks(JsonObject payload) {
        List<ConsoleViews.Check> checks = new ArrayList<>();
        for (JsonValue value : payload.getJsonArray("checks")) {
            JsonObject check = value.asJsonObject();
            List<ConsoleViews.KeyValue> data = new ArrayList<>();
            JsonObject raw = check.getJsonObject("data");
            if (raw != null) {
                raw.forEach((k, v) -> data.add(new ConsoleViews.KeyValue(k,
                        v.getValueType() == JsonValue.ValueType.STRING ? ((JsonString) v).getString()
                                : v.toString())));
            }
            checks.add(new ConsoleViews.Check(check.getString("name", "?"), check.getString("status", "?"), data));
        }
        return checks;
    }

    private static String color(Outcome outcome) {
        return switch (outcome) {
            case PROCESSED -> "#2e7d32";
            case DUPLICATE -> "#78909c";
            case CONFLICT -> "#6a1b9a";
            case STALE -> "#9e9d24";
            case PARKED -> "#0277bd";
            case REJECTED -> "#ef6c00";
            case RETRIED -> "#f9a825";
            case DEAD_LETTERED -> "#c62828";
        };
    }
}
