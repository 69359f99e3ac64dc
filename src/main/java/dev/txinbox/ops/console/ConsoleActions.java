package dev.txinbox.ops.console;

import static dev.txinbox.ops.console.ConsoleInput.input;
import static dev.txinbox.ops.console.ConsoleViews.href;
import static dev.txinbox.ops.console.ConsoleViews.text;

import java.util.ArrayList;
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

import dev.txinbox.inbox.InboxMessage;
import dev.txinbox.inbox.Outcome;
import dev.txinbox.ops.admin.AdminInput;
import dev.txinbox.ops.admin.InboxRepairs;
import dev.txinbox.inbox.InboxReadModel;
import dev.txinbox.ordering.StreamOrdering;
import io.quarkus.qute.TemplateInstance;
import io.smallrye.common.annotation.Blocking;

/**
 * What the console changes, each in two steps: a GET shows what will happen and a form; the form's POST,
 * with the session's CSRF token ({@link ConsoleRequest#formSession}), does it and shows the result. Every
 * action is written to {@code admin_audit} with the session that did it. No GET changes state.
 */
@Path("/console")
@Blocking
@Produces(MediaType.TEXT_HTML)
public class ConsoleActions {

    /** "Redrive all" moves what the dead-letter queue holds when asked, at most this many. */
    static final int MAX_REDRIVE_ALL = 10_000;
    /** A group retry replays at most this many entries, the oldest first; the rest wait for the next one. */
    static final int MAX_GROUP_RETRY = 500;

    private final InboxRepairs operations;
    private final InboxReadModel readModel;
    private final ConsoleRequest request;
    private final ConsoleInput parameters;
    private final ConsoleClock clock;

    public ConsoleActions(InboxRepairs operations, InboxReadModel readModel, ConsoleRequest request,
            ConsoleInput parameters, ConsoleClock clock) {
        this.operations = operations;
        this.readModel = readModel;
        this.request = request;
        this.parameters = parameters;
        this.clock = clock;
    }

    @GET
    @Path("/replay")
    public TemplateInstance confirmReplay(@RestQuery String consumer, @RestQuery String id) {
        String name = parameters.knownConsumer(consumer);
        String messageId = input(() -> AdminInput.id("id", id));
        InboxMessage entry = readModel.entry(name, messageId).map(InboxReadModel.EntryDetail::entry)
                .orElseThrow(() -> noEntry(name, messageId));
        return ConsoleTemplates.confirmReplay(request.chrome("Replay " + messageId, "entries"),
                ConsoleViews.EntryRow.of(entry));
    }

    @POST
    @Path("/replay")
    public Response replay(@RestForm String csrf, @RestForm String consumer, @RestForm String id) {
        ConsoleSessions.Session session = request.formSession(csrf);
        String name = parameters.knownConsumer(consumer);
        String messageId = input(() -> AdminInput.id("id", id));
        InboxRepairs.Replay replay = operations.replay(session.actor(), name, messageId)
                .orElseThrow(() -> noEntry(name, messageId));
        Outcome outcome = replay.result().outcome();
        return result(Response.Status.OK, "entries", new ConsoleViews.Result("Replayed " + messageId,
                outcome != Outcome.DEAD_LETTERED && outcome != Outcome.RETRIED,
                List.of("Outcome: " + outcome.label(), "Detail: " + text(replay.result().detail()),
                        "Status now: " + text(replay.statusNow())),
                List.of(new ConsoleViews.Link(href("/entry", "consumer", name, "id", messageId), "the entry"))));
    }

    @GET
    @Path("/redrive")
    public TemplateInstance confirmRedrive(@RestQuery String consumer) {
        String name = parameters.knownConsumer(consumer);
        var settings = operations.consumer(name).orElseThrow();
        String depth;
        try {
            depth = Long.toString(operations.deadLetterDepth(name));
        } catch (RuntimeException e) {
            depth = "unknown (SQS did not answer: " + e.getMessage() + ")";
        }
        return ConsoleTemplates.confirmRedrive(request.chrome("Redrive " + settings.dlq(), "overview"), name,
                settings.dlq(), settings.queue(), depth, MAX_REDRIVE_ALL);
    }

    @POST
    @Path("/redrive")
    public Response redrive(@RestForm String csrf, @RestForm String consumer, @RestForm String scope,
            @RestForm String max) {
        ConsoleSessions.Session session = request.formSession(csrf);
        String name = parameters.knownConsumer(consumer);
        var settings = operations.consumer(name).orElseThrow();
        int asked = "all".equals(scope) ? 0 : input(() -> AdminInput.number("max", max, 1, MAX_REDRIVE_ALL));
        String title = "Redrive of " + settings.dlq();
        try {
            // "All" is what the queue holds now: messages that fail again and return meanwhile wait for the next.
            int limit = asked > 0 ? asked
                    : (int) Math.max(1, Math.min(MAX_REDRIVE_ALL, operations.deadLetterDepth(name)));
            int moved = operations.redrive(session.actor(), name, limit);
            return result(Response.Status.OK, "overview", new ConsoleViews.Result(title, true,
                    List.of("Moved " + moved + " message" + (moved == 1 ? "" : "s") + " from " + settings.dlq()
                            + " to " + settings.queue() + " (asked for up to " + limit + ")."),
                    List.of(new ConsoleViews.Link("/console", "overview"),
                            new ConsoleViews.Link(href("/entries", "consumer", name), "entries"))));
        } catch (RuntimeException e) {
            return result(Response.Status.BAD_GATEWAY, "overview", new ConsoleViews.Result(title, false,
                    List.of("The redrive failed: " + e.getMessage()),
                    List.of(new ConsoleViews.Link("/console", "overview"))));
        }
    }

    @GET
    @Path("/release")
    public TemplateInstance confirmRelease(@RestQuery String consumer, @RestQuery String aggregateId) {
        String name = parameters.knownConsumer(consumer);
        String aggregate = input(() -> AdminInput.aggregateId("aggregateId", aggregateId));
        InboxReadModel.ParkedStream stream = readModel.parkedStream(name, aggregate)
                .orElseThrow(() -> ConsoleProblem.notFound("Nothing parked",
                        "Stream " + aggregate + " of " + name + " has no parked event."));
        return ConsoleTemplates.confirmRelease(request.chrome("Release " + aggregate, "streams"),
                ConsoleViews.StreamRow.of(stream, clock.now()));
    }

    @POST
    @Path("/release")
    public Response release(@RestForm String csrf, @RestForm String consumer, @RestForm String aggregateId) {
        ConsoleSessions.Session session = request.formSession(csrf);
        String name = parameters.knownConsumer(consumer);
        String aggregate = input(() -> AdminInput.aggregateId("aggregateId", aggregateId));
        String title = "Gap release of " + aggregate;
        Optional<StreamOrdering.GapRelease> release = operations.release(session.actor(), name, aggregate);
        List<ConsoleViews.Link> links = List.of(new ConsoleViews.Link(href("/streams", "consumer", name), "streams"),
                new ConsoleViews.Link(href("/entries", "consumer", name, "aggregateId", aggregate, "status", "ANY"),
                        "entries of " + aggregate));
        if (release.isEmpty()) {
            return result(Response.Status.CONFLICT, "streams", new ConsoleViews.Result(title, false,
                    List.of("Stream " + aggregate + " has no parked event any more."), links));
        }
        StreamOrdering.GapRelease r = release.get();
        return result(Response.Status.OK, "streams", new ConsoleViews.Result(title, true,
                List.of("Skipped sequence" + (r.skippedFrom() == r.skippedTo() ? " " + r.skippedFrom()
                        : "s " + r.skippedFrom() + " to " + r.skippedTo()) + ".",
                        "The stream was at " + r.lastBefore() + " and is now at " + r.lastAfter() + "."),
                links));
    }

    @GET
    @Path("/retry-group")
    public TemplateInstance confirmRetryGroup(@RestQuery String consumer, @RestQuery String group) {
        String name = parameters.knownConsumer(consumer);
        String id = input(() -> AdminInput.id("group", group));
        InboxReadModel.FailureGroup found = readModel.failureGroup(name, id).orElseThrow(() -> noGroup(name));
        List<ConsoleViews.EntryRow> members = readModel.failureMembers(name, id, MAX_GROUP_RETRY).stream()
                .map(m -> new ConsoleViews.EntryRow(name, m.messageId(), m.status(), "", "", "", 0, "", "",
                        href("/entry", "consumer", name, "id", m.messageId())))
                .toList();
        return ConsoleTemplates.confirmRetryGroup(request.chrome("Retry a failure group", "failures"),
                ConsoleViews.GroupRow.of(found), members, MAX_GROUP_RETRY);
    }

    @POST
    @Path("/retry-group")
    public Response retryGroup(@RestForm String csrf, @RestForm String consumer, @RestForm String group) {
        ConsoleSessions.Session session = request.formSession(csrf);
        String name = parameters.knownConsumer(consumer);
        String id = input(() -> AdminInput.id("group", group));
        InboxRepairs.GroupRetry retry = operations.retryGroup(session.actor(), name, id, MAX_GROUP_RETRY)
                .orElseThrow(() -> noGroup(name));
        int retried = retry.retried();
        List<String> lines = new ArrayList<>();
        lines.add("Retried " + retried + " entr" + (retried == 1 ? "y" : "ies") + " failing with: "
                + retry.group().cause());
        retry.outcomes().forEach((outcome, n) -> lines.add(outcome + ": " + n));
        return result(Response.Status.OK, "failures", new ConsoleViews.Result("Group retried", true, lines,
                List.of(new ConsoleViews.Link(href("/failures", "consumer", name), "failures"),
                        new ConsoleViews.Link("/console/audit", "audit"))));
    }

    /** The page after an action: what it did, or why it did not, with a status that says the same. */
    private Response result(Response.Status status, String nav, ConsoleViews.Result result) {
        return ConsoleFilter.html(status,
                ConsoleTemplates.result(request.chrome(result.title(), nav), result).render());
    }

    private static ConsoleProblem noEntry(String consumer, String messageId) {
        return ConsoleProblem.notFound("No such entry", "Consumer " + consumer + " has no entry " + messageId + ".");
    }

    private static ConsoleProblem noGroup(String consumer) {
        return ConsoleProblem.notFound("No such failure group", "Consumer " + consumer
                + " has no failed or dead entry with that cause any more.");
    }
}
