package dev.txinbox.ops.console;

import static dev.txinbox.ops.console.ConsoleInput.input;
import static dev.txinbox.ops.console.ConsoleViews.duration;
import static dev.txinbox.ops.console.ConsoleViews.href;
import static dev.txinbox.ops.console.ConsoleViews.text;
import static dev.txinbox.ops.console.ConsoleViews.time;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.resteasy.reactive.RestForm;
import org.jboss.resteasy.reactive.RestQuery;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.ops.admin.AdminInput;
import dev.txinbox.ops.admin.OutboxRepairs;
import dev.txinbox.outbox.EmbeddedRelay;
import dev.txinbox.outbox.OutboxOperations;
import dev.txinbox.outbox.OutboxRelay;
import dev.txinbox.ops.metrics.OutboxStatistics;
import io.quarkus.qute.TemplateInstance;
import io.smallrye.common.annotation.Blocking;

/**
 * The console's Outbox page: what is pending, how old the oldest event is, the relay's state, and the waiting
 * streams, each with a retry and a skip (confirmed, then a POST with the CSRF token, audited).
 */
@Path("/console/outbox")
@Blocking
@Produces(MediaType.TEXT_HTML)
public class ConsoleOutbox {

    private static final int MAX_WAITING = 500;

    private final OutboxOperations operations;
    private final OutboxRepairs repairs;
    private final OutboxStatistics statistics;
    private final EmbeddedRelay relay;
    private final TxinboxConfig.Outbox config;
    private final ConsoleRequest request;
    private final ConsoleClock clock;

    public ConsoleOutbox(OutboxOperations operations, OutboxRepairs repairs, OutboxStatistics statistics,
            EmbeddedRelay relay, TxinboxConfig config, ConsoleRequest request, ConsoleClock clock) {
        this.operations = operations;
        this.repairs = repairs;
        this.statistics = statistics;
        this.relay = relay;
        this.config = config.outbox();
        this.request = request;
        this.clock = clock;
    }

    @GET
    public TemplateInstance page() {
        OutboxStatistics.Pending pending = statistics.latest();
        Optional<OutboxRelay.State> state = relay.relay().map(OutboxRelay::state);
        Instant now = clock.now();
        List<ConsoleViews.OutboxRow> rows = operations.waiting(MAX_WAITING).stream()
                .map(w -> row(w, now)).toList();
        ConsoleViews.OutboxSummary summary = new ConsoleViews.OutboxSummary(config.queue(),
                state.map(s -> s.publishing().name().toLowerCase().replace('_', ' ')).orElse("disabled"),
                state.map(s -> text(s.error())).orElse(""), state.map(s -> s.owned().size()).orElse(0),
                config.partitions(), pending.pending(), duration(Duration.ofSeconds(Math.round(pending.oldestPendingSeconds()))),
                pending.waitingStreams());
        return ConsoleTemplates.outbox(request.chrome("Outbox", "outbox"), summary, rows);
    }

    @GET
    @Path("/confirm")
    public TemplateInstance confirm(@RestQuery String action, @RestQuery String aggregateId) {
        String what = action(action);
        String aggregate = input(() -> AdminInput.aggregateId("aggregateId", aggregateId));
        OutboxOperations.Waiting waiting = operations.waiting(aggregate).orElseThrow(() -> notWaiting(aggregate));
        return ConsoleTemplates.confirmOutbox(request.chrome(("retry".equals(what) ? "Retry " : "Skip ") + aggregate,
                "outbox"), what, row(waiting, clock.now()));
    }

    @POST
    @Path("/retry")
    public Response retry(@RestForm String csrf, @RestForm String aggregateId) {
        ConsoleSessions.Session session = request.formSession(csrf);
        String aggregate = input(() -> AdminInput.aggregateId("aggregateId", aggregateId));
        return result("Retry of " + aggregate, repairs.retry(session.actor(), aggregate),
                w -> "Event " + w.eventId() + " (sequence " + w.sequence() + ") is sent again now.");
    }

    @POST
    @Path("/skip")
    public Response skip(@RestForm String csrf, @RestForm String aggregateId) {
        ConsoleSessions.Session session = request.formSession(csrf);
        String aggregate = input(() -> AdminInput.aggregateId("aggregateId", aggregateId));
        return result("Skip in " + aggregate, repairs.skip(session.actor(), aggregate),
                w -> "Event " + w.eventId() + " (sequence " + w.sequence() + ") will never be sent; the aggregate's"
                        + " next event goes next.");
    }

    private Response result(String title, Optional<OutboxOperations.Waiting> done,
            java.util.function.Function<OutboxOperations.Waiting, String> line) {
        List<ConsoleViews.Link> links = List.of(new ConsoleViews.Link(href("/outbox"), "outbox"));
        ConsoleViews.Result result = done.map(w -> new ConsoleViews.Result(title, true, List.of(line.apply(w)), links))
                .orElseGet(() -> new ConsoleViews.Result(title, false,
                        List.of("The aggregate waits at no refused event any more."), links));
        return ConsoleFilter.html(done.isPresent() ? Response.Status.OK : Response.Status.CONFLICT,
                ConsoleTemplates.result(request.chrome(title, "outbox"), result).render());
    }

    private static ConsoleViews.OutboxRow row(OutboxOperations.Waiting w, Instant now) {
        return new ConsoleViews.OutboxRow(w.aggregateType(), w.aggregateId(), w.eventId().toString(), w.type(),
                w.sequence(), w.attempts(), text(w.lastError()), time(w.nextAttemptAt()),
                duration(Duration.between(w.recordedAt(), now)), w.pendingBehind(),
                new ConsoleViews.Link(href("/outbox/confirm", "action", "retry", "aggregateId", w.aggregateId()), "Retry…"),
                new ConsoleViews.Link(href("/outbox/confirm", "action", "skip", "aggregateId", w.aggregateId()), "Skip…"));
    }

    private static String action(String action) {
        if (!"retry".equals(action) && !"skip".equals(action)) {
            throw new ConsoleProblem(Response.Status.BAD_REQUEST, "Unknown action", "An outbox stream can be retried or skipped, not '"
                    + text(action) + "'.");
        }
        return action;
    }

    private static ConsoleProblem notWaiting(String aggregate) {
        return ConsoleProblem.notFound("Not waiting", "Aggregate " + aggregate + " waits at no refused event.");
    }
}
