package dev.txinbox.ops.console;

import static dev.txinbox.ops.console.ConsoleInput.blank;
import static dev.txinbox.ops.console.ConsoleInput.input;
import static dev.txinbox.ops.console.ConsoleInput.instant;
import static dev.txinbox.ops.console.ConsoleViews.href;
import static dev.txinbox.ops.console.ConsoleViews.text;
import static dev.txinbox.ops.console.ConsoleViews.time;

import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.resteasy.reactive.RestPath;
import org.jboss.resteasy.reactive.RestQuery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.inbox.InboxMessage;
import dev.txinbox.inbox.InboxStatus;
import dev.txinbox.inbox.TraceParent;
import dev.txinbox.ops.admin.AdminAudit;
import dev.txinbox.ops.admin.AdminInput;
import dev.txinbox.ops.admin.InboxRepairs;
import dev.txinbox.inbox.InboxReadModel;
import io.quarkus.qute.TemplateInstance;
import io.smallrye.common.annotation.Blocking;

/**
 * The console's lists and details beside the overview ({@link ConsoleOverview}): entries, one entry, failures
 * grouped by cause, parked streams and the audit, over the same services as the admin API. They only read:
 * what changes something is in {@link ConsoleActions}.
 */
@Path("/console")
@Blocking
@Produces(MediaType.TEXT_HTML)
public class ConsolePages {

    static final int PAGE_SIZE = 50;
    static final int MAX_PAGE = 10_000_000;
    private static final int MAX_STREAMS = 500;
    private static final int MAX_GROUPS = 200;
    /** The problem statuses: what the entries page lists unless told otherwise. */
    private static final Set<InboxStatus> PROBLEMS = EnumSet.of(InboxStatus.FAILED, InboxStatus.DEAD,
            InboxStatus.PARKED, InboxStatus.REJECTED);
    private static final Pattern DEAD_REASON = Pattern.compile("^(invalid message|gave up after \\d+ attempts): (.*)$",
            Pattern.DOTALL);

    private final InboxRepairs operations;
    private final AdminAudit audit;
    private final InboxReadModel readModel;
    private final ConsoleRequest request;
    private final ConsoleInput parameters;
    private final ConsoleClock clock;
    private final ObjectMapper json;
    private final Optional<String> traceUrlTemplate;

    public ConsolePages(InboxRepairs operations, AdminAudit audit, InboxReadModel readModel,
            ConsoleRequest request, ConsoleInput parameters, ConsoleClock clock,
            ObjectMapper json, TxinboxConfig config) {
        this.traceUrlTemplate = config.console().traceUrlTemplate();
        this.operations = operations;
        this.audit = audit;
        this.readModel = readModel;
        this.request = request;
        this.parameters = parameters;
        this.clock = clock;
        this.json = json;
    }

    @GET
    @Path("/entries")
    public Response entries(@RestQuery String consumer, @RestQuery String status, @RestQuery String aggregateId,
            @RestQuery String from, @RestQuery String to, @RestQuery String page) {
        ConsoleViews.EntryFilterForm form = new ConsoleViews.EntryFilterForm(text(consumer), text(status),
                text(aggregateId), text(from), text(to));
        List<ConsoleViews.KeyValue> statuses = new ArrayList<>();
        statuses.add(new ConsoleViews.KeyValue("", "failed, dead, parked, rejected"));
        for (InboxStatus s : InboxStatus.values()) {
            statuses.add(new ConsoleViews.KeyValue(s.name(), s.name().toLowerCase()));
        }
        statuses.add(new ConsoleViews.KeyValue("ANY", "any status"));
        InboxReadModel.EntryFilter filter;
        int pageNumber;
        try {
            Set<InboxStatus> wanted = blank(status) ? PROBLEMS
                    : "ANY".equals(status) ? Set.of() : Set.of(AdminInput.status(status));
            filter = new InboxReadModel.EntryFilter(wanted,
                    blank(consumer) ? null : parameters.knownConsumer(consumer),
                    blank(aggregateId) ? null : AdminInput.aggregateId("aggregate", aggregateId.strip()),
                    blank(from) ? null : instant("from", from), blank(to) ? null : instant("to", to));
            pageNumber = blank(page) ? 0 : AdminInput.number("page", page, 0, MAX_PAGE);
        } catch (IllegalArgumentException | ConsoleProblem e) {
            return ConsoleFilter.html(Response.Status.BAD_REQUEST, ConsoleTemplates.entries(
                    request.chrome("Entries", "entries"), new ConsoleViews.EntriesPage(form,
                            List.copyOf(operations.consumerNames()), statuses, List.of(), 0, null, null,
                            e.getMessage())).render());
        }
        InboxReadModel.EntryPage found = readModel.entries(filter, pageNumber, PAGE_SIZE);
        List<ConsoleViews.EntryRow> rows = found.items().stream().map(ConsoleViews.EntryRow::of).toList();
        ConsoleViews.Link previous = pageNumber == 0 ? null : pageLink(form, pageNumber - 1, "← newer");
        ConsoleViews.Link next = found.hasMore() ? pageLink(form, pageNumber + 1, "older →") : null;
        return ConsoleFilter.html(Response.Status.OK, ConsoleTemplates.entries(request.chrome("Entries", "entries"),
                new ConsoleViews.EntriesPage(form, List.copyOf(operations.consumerNames()), statuses, rows, pageNumber,
                        previous, next, null)).render());
    }

    @GET
    @Path("/entry")
    public TemplateInstance entry(@RestQuery String consumer, @RestQuery String id) {
        String name = parameters.knownConsumer(consumer);
        String messageId = input(() -> AdminInput.id("id", id));
        InboxReadModel.EntryDetail detail = readModel.entry(name, messageId)
                .orElseThrow(() -> ConsoleProblem.notFound("No such entry",
                        "Consumer " + name + " has no entry " + messageId + " (retention may have deleted it)."));
        InboxMessage m = detail.entry();
        String body = m.body;
        boolean isJson = false;
        try {
            JsonNode tree = json.readTree(body);
            if (tree != null && (tree.isObject() || tree.isArray())) {
                body = json.writerWithDefaultPrettyPrinter().writeValueAsString(tree);
                isJson = true;
            }
        } catch (Exception e) {
            // not JSON: shown as it came
        }
        List<ConsoleViews.KeyValue> source = List.of(kv("queue", m.sourceQueue),
                kv("SQS message id", m.sourceMessageId), kv("message group", m.sourceGroupId),
                kv("sent at", time(m.sourceSentAt)), kv("receive count", text(m.receiveCount)));
        List<ConsoleViews.KeyValue> times = List.of(kv("received", time(m.receivedAt)),
                kv("finished", time(m.processedAt)), kv("next attempt", time(m.nextAttemptAt)));
        List<ConsoleViews.AttemptRow> attempts = detail.attempts().stream().map(ConsoleViews.AttemptRow::of).toList();
        return ConsoleTemplates.entry(request.chrome("Entry " + m.messageId, "entries"), new ConsoleViews.EntryDetail(
                ConsoleViews.EntryRow.of(m), text(m.errorText), body, isJson, m.payloadHash, source, times, attempts,
                deadLetter(m),
                new ConsoleViews.Link(href("/replay", "consumer", name, "id", m.messageId), "Replay…"),
                m.aggregateId == null ? null : new ConsoleViews.Link(href("/entries", "consumer", name, "aggregateId",
                        m.aggregateId, "status", "ANY"), "all entries of " + m.aggregateId), trace(m.traceparent)));
    }

    /** The entry's trace, linked when a trace view's URL template is configured; null for an untraced entry. */
    private ConsoleViews.Trace trace(String traceparent) {
        String traceId = TraceParent.traceId(traceparent);
        if (traceId == null) {
            return null;
        }
        return new ConsoleViews.Trace(traceId, traceUrlTemplate.map(t -> t.replace("{traceId}", traceId)).orElse(null));
    }

    @GET
    @Path("/failures")
    public TemplateInstance failures(@RestQuery String consumer) {
        String name = blank(consumer) ? null : parameters.knownConsumer(consumer);
        List<ConsoleViews.GroupRow> groups = readModel.failureGroups(name, MAX_GROUPS).stream()
                .map(ConsoleViews.GroupRow::of).toList();
        return ConsoleTemplates.failures(request.chrome("Failures", "failures"),
                List.copyOf(operations.consumerNames()), text(name), groups);
    }

    @GET
    @Path("/streams")
    public TemplateInstance streams(@RestQuery String consumer) {
        String name = blank(consumer) ? null : parameters.knownConsumer(consumer);
        Instant now = clock.now();
        List<ConsoleViews.StreamRow> rows = readModel.parkedStreams(name, MAX_STREAMS).stream()
                .map(s -> ConsoleViews.StreamRow.of(s, now)).toList();
        return ConsoleTemplates.streams(request.chrome("Streams", "streams"),
                List.copyOf(operations.consumerNames()), text(name), rows);
    }

    @GET
    @Path("/audit")
    public TemplateInstance audit(@RestQuery String page) {
        int number = blank(page) ? 0 : input(() -> AdminInput.number("page", page, 0, MAX_PAGE));
        AdminAudit.Page found = audit.recent(number, PAGE_SIZE);
        List<ConsoleViews.AuditRow> rows = found.entries().stream()
                .map(e -> new ConsoleViews.AuditRow(time(e.at()), text(e.actor()), e.action(), text(e.consumer()),
                        text(e.target()), e.outcome(), text(e.detail())))
                .toList();
        ConsoleViews.Link newer = number == 0 ? null
                : new ConsoleViews.Link(href("/audit", "page", Integer.toString(number - 1)), "← newer");
        ConsoleViews.Link older = found.hasMore()
                ? new ConsoleViews.Link(href("/audit", "page", Integer.toString(number + 1)), "older →") : null;
        return ConsoleTemplates.audit(request.chrome("Audit", "audit"), rows, newer, older);
    }

    /** A console path that names no page gets a page saying so (the API's JSON 404 would answer otherwise). */
    @GET
    @Path("/{unknown: .+}")
    public TemplateInstance unknown(@RestPath String unknown) {
        throw ConsoleProblem.notFound("No such page", "The console has no page /console/" + unknown + ".");
    }

    private ConsoleViews.Link pageLink(ConsoleViews.EntryFilterForm f, int page, String label) {
        return new ConsoleViews.Link(href("/entries", "consumer", f.consumer(), "status", f.status(), "aggregateId",
                f.aggregateId(), "from", f.from(), "to", f.to(), "page", Integer.toString(page)), label);
    }

    /**
     * The attributes the dead-letter copy was sent with (Settlement), rebuilt from the entry's record, which
     * keeps every one of them but the moment of the copy (close to "finished") and the first receive.
     */
    private static List<ConsoleViews.KeyValue> deadLetter(InboxMessage m) {
        if (m.status != InboxStatus.DEAD) {
            return List.of();
        }
        String text = text(m.errorText);
        Matcher reason = DEAD_REASON.matcher(text);
        return List.of(kv("txinbox-reason", reason.matches() ? reason.group(1) : "(replayed: see the error)"),
                kv("txinbox-error", reason.matches() ? reason.group(2) : text),
                kv("txinbox-attempts", Integer.toString(m.attemptCount)), kv("txinbox-consumer", m.consumerName),
                kv("txinbox-source-queue", m.sourceQueue), kv("txinbox-source-message-id", m.sourceMessageId),
                kv("txinbox-receive-count", text(m.receiveCount)), kv("event-id", m.messageId));
    }

    private static ConsoleViews.KeyValue kv(String key, Object value) {
        return new ConsoleViews.KeyValue(key, text(value));
    }
}
