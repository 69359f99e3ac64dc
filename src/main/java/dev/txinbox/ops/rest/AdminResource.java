package dev.txinbox.ops.rest;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeType;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.security.SecurityScheme;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.inbox.InboxStatus;
import dev.txinbox.ops.admin.AdminAudit;
import dev.txinbox.ops.admin.AdminInput;
import dev.txinbox.ops.admin.InboxRepairs;
import dev.txinbox.inbox.InboxReadModel;
import dev.txinbox.ops.metrics.InboxStatistics;
import dev.txinbox.ordering.StreamOrdering;

/** The operator API (CONTRACT §5): look into the inbox and repair it without SQL. */
@Path("/admin")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "admin", description = "Inbox inspection and repair; needs Authorization: Bearer $TXINBOX_ADMIN_TOKEN")
@SecurityScheme(securitySchemeName = "admin-token", type = SecuritySchemeType.HTTP, scheme = "bearer")
@SecurityRequirement(name = "admin-token")
public class AdminResource {

    static final int MAX_PAGE_SIZE = 200;
    static final int MAX_REDRIVE = 1000;
    /** page × size must stay a valid row offset: 200 × 10,000,000 does. */
    static final int MAX_PAGE = 10_000_000;

    private final InboxRepairs operations;
    private final InboxReadModel readModel;
    private final InboxStatistics statistics;

    public AdminResource(InboxRepairs operations, InboxReadModel readModel, InboxStatistics statistics) {
        this.operations = operations;
        this.readModel = readModel;
        this.statistics = statistics;
    }

    @GET
    @Path("/stats")
    @Operation(summary = "Entries by consumer and status, with lag, backlog, parked and failed numbers")
    public AdminViews.Stats stats() {
        Map<String, Map<String, Long>> counts = readModel.countsByStatus();
        Map<String, AdminViews.ConsumerStats> result = new TreeMap<>();
        for (String consumer : operations.consumerNames()) {
            result.put(consumer, new AdminViews.ConsumerStats(counts.getOrDefault(consumer, Map.of()),
                    statistics.latest(consumer).orElse(null)));
        }
        return new AdminViews.Stats(result);
    }

    @GET
    @Path("/inbox")
    @Operation(summary = "Inbox entries, newest first, filtered and paged (size at most 200)")
    public AdminViews.Page list(@QueryParam("status") String status, @QueryParam("consumer") String consumer,
            @QueryParam("aggregateId") String aggregateId, @QueryParam("from") String from, @QueryParam("to") String to,
            @QueryParam("page") @DefaultValue("0") String pageParam, @QueryParam("size") @DefaultValue("50") String sizeParam) {
        int page = number("page", pageParam, 0, MAX_PAGE);
        int size = number("size", sizeParam, 1, MAX_PAGE_SIZE);
        InboxReadModel.EntryFilter filter = new InboxReadModel.EntryFilter(
                status == null ? Set.of() : Set.of(status(status)),
                consumer == null ? null : id("consumer", consumer),
                aggregateId == null ? null : valid(() -> AdminInput.aggregateId("aggregateId", aggregateId)),
                from == null ? null : instant("from", from),
                to == null ? null : instant("to", to));
        InboxReadModel.EntryPage found = readModel.entries(filter, page, size);
        List<AdminViews.Entry> items = found.items().stream().map(AdminViews.Entry::of).toList();
        return new AdminViews.Page(items, page, size, found.hasMore());
    }

    @GET
    @Path("/inbox/{consumer}/{messageId}")
    @Operation(summary = "One entry with its payload, error and attempt history")
    public AdminViews.EntryDetail entry(@PathParam("consumer") String consumer, @PathParam("messageId") String messageId) {
        InboxReadModel.EntryDetail detail = readModel.entry(id("consumer", consumer), id("messageId", messageId))
                .orElseThrow(() -> notFound("no entry " + messageId + " for consumer " + consumer));
        return new AdminViews.EntryDetail(AdminViews.Entry.of(detail.entry()), detail.entry().body,
                detail.entry().payloadHash, detail.attempts().stream().map(AdminViews.Attempt::of).toList());
    }

    @POST
    @Path("/inbox/{consumer}/{messageId}/replay")
    @Operation(summary = "Run the entry's stored payload through the inbox again (idempotent)")
    public AdminViews.Replay replay(@PathParam("consumer") String consumer, @PathParam("messageId") String messageId) {
        consumer(consumer);
        InboxRepairs.Replay replay = operations.replay(AdminAudit.ADMIN_API, consumer, id("messageId", messageId))
                .orElseThrow(() -> notFound("no entry " + messageId + " for consumer " + consumer));
        return new AdminViews.Replay(consumer, messageId, replay.result().outcome().label(), replay.result().detail(),
                replay.statusNow());
    }

    @POST
    @Path("/dlq/{consumer}/redrive")
    @Operation(summary = "Move up to max (default 10, at most 1000) dead-lettered messages back to the source queue")
    public AdminViews.Redrive redrive(@PathParam("consumer") String consumer,
            @QueryParam("max") @DefaultValue("10") String maxParam) {
        TxinboxConfig.Consumer settings = consumer(consumer);
        int max = number("max", maxParam, 1, MAX_REDRIVE);
        int moved;
        try {
            moved = operations.redrive(AdminAudit.ADMIN_API, consumer, max);
        } catch (RuntimeException e) {
            throw new WebApplicationException(Response.status(Response.Status.BAD_GATEWAY)
                    .entity(Map.of("error", "redrive failed: " + e.getMessage())).type(MediaType.APPLICATION_JSON).build());
        }
        return new AdminViews.Redrive(consumer, settings.dlq(), settings.queue(), moved);
    }

    @POST
    @Path("/streams/{consumer}/{aggregateId}/release")
    @Operation(summary = "Give up on a gap: accept the next parked sequence of the stream and apply from there")
    public AdminViews.GapRelease release(@PathParam("consumer") String consumer,
            @PathParam("aggregateId") String aggregateId) {
        consumer(consumer);
        StreamOrdering.GapRelease release = operations.release(AdminAudit.ADMIN_API, consumer,
                valid(() -> AdminInput.aggregateId("aggregateId", aggregateId)))
                .orElseThrow(() -> new WebApplicationException(Response.status(Response.Status.CONFLICT)
                        .entity(Map.of("error", "stream " + aggregateId + " of " + consumer + " has no parked event"))
                        .type(MediaType.APPLICATION_JSON).build()));
        return new AdminViews.GapRelease(consumer, aggregateId, release.lastBefore(), release.skippedFrom(),
                release.skippedTo(), release.lastAfter());
    }

    private TxinboxConfig.Consumer consumer(String consumer) {
        return operations.consumer(id("consumer", consumer)).orElseThrow(() -> notFound("no consumer " + consumer));
    }

    private static String id(String name, String value) {
        return valid(() -> AdminInput.id(name, value));
    }

    private static int number(String name, String value, int min, int max) {
        return valid(() -> AdminInput.number(name, value, min, max));
    }

    private static InboxStatus status(String value) {
        return valid(() -> AdminInput.status(value));
    }

    private static Instant instant(String name, String value) {
        return valid(() -> AdminInput.instant(name, value));
    }

    /** AdminInput's verdict, as a 400 with the reason in JSON. */
    private static <T> T valid(java.util.function.Supplier<T> check) {
        try {
            return check.get();
        } catch (IllegalArgumentException e) {
            throw badRequest(e.getMessage());
        }
    }

    private static WebApplicationException badRequest(String why) {
        return error(Response.Status.BAD_REQUEST, why);
    }

    private static WebApplicationException notFound(String why) {
        return error(Response.Status.NOT_FOUND, why);
    }

    private static WebApplicationException error(Response.Status status, String why) {
        return new WebApplicationException(why, Response.status(status).type(MediaType.APPLICATION_JSON)
                .entity(Map.of("error", why)).build());
    }
}
