package dev.txinbox.ops.rest;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

import dev.txinbox.inbox.Inbox;
import dev.txinbox.inbox.InboxAttempt;
import dev.txinbox.inbox.InboxMessage;
import dev.txinbox.inbox.InboxRepository;
import dev.txinbox.inbox.InboxResult;
import dev.txinbox.inbox.InboxStatus;
import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.messaging.SqsQueues;
import dev.txinbox.ops.AdminAudit;
import dev.txinbox.ops.InboxStatistics;
import dev.txinbox.ordering.StreamOrdering;
import io.quarkus.narayana.jta.QuarkusTransaction;

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
    private static final int MAX_ID_LENGTH = 200;

    private final Inbox inbox;
    private final InboxRepository repository;
    private final TxinboxConfig config;
    private final SqsQueues queues;
    private final InboxStatistics statistics;
    private final AdminAudit audit;

    public AdminResource(Inbox inbox, InboxRepository repository, TxinboxConfig config, SqsQueues queues,
            InboxStatistics statistics, AdminAudit audit) {
        this.inbox = inbox;
        this.repository = repository;
        this.config = config;
        this.queues = queues;
        this.statistics = statistics;
        this.audit = audit;
    }

    @GET
    @Path("/stats")
    @Operation(summary = "Entries by consumer and status, with lag, backlog, parked and failed numbers")
    public AdminViews.Stats stats() {
        Map<String, Map<String, Long>> counts = new TreeMap<>();
        List<Object[]> rows = QuarkusTransaction.requiringNew().call(() -> repository.getEntityManager()
                .createQuery("select m.consumerName, m.status, count(m) from InboxMessage m group by 1, 2", Object[].class)
                .getResultList());
        for (Object[] row : rows) {
            counts.computeIfAbsent((String) row[0], c -> new TreeMap<>()).put(row[1].toString(), (Long) row[2]);
        }
        Map<String, AdminViews.ConsumerStats> result = new TreeMap<>();
        for (String consumer : config.consumers().keySet()) {
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
        StringBuilder where = new StringBuilder("1 = 1");
        Map<String, Object> parameters = new HashMap<>();
        if (status != null) {
            where.append(" and status = :status");
            parameters.put("status", status(status));
        }
        if (consumer != null) {
            where.append(" and consumerName = :consumer");
            parameters.put("consumer", id("consumer", consumer));
        }
        if (aggregateId != null) {
            where.append(" and aggregateId = :aggregate");
            parameters.put("aggregate", id("aggregateId", aggregateId));
        }
        if (from != null) {
            where.append(" and receivedAt >= :from");
            parameters.put("from", instant("from", from));
        }
        if (to != null) {
            where.append(" and receivedAt < :to");
            parameters.put("to", instant("to", to));
        }
        List<InboxMessage> found = QuarkusTransaction.requiringNew().call(() -> repository
                .find(where + " order by id desc", parameters).range(page * size, page * size + size).list());
        boolean hasMore = found.size() > size;
        List<AdminViews.Entry> items = new ArrayList<>();
        found.stream().limit(size).forEach(m -> items.add(AdminViews.Entry.of(m)));
        return new AdminViews.Page(items, page, size, hasMore);
    }

    @GET
    @Path("/inbox/{consumer}/{messageId}")
    @Operation(summary = "One entry with its payload, error and attempt history")
    public AdminViews.EntryDetail entry(@PathParam("consumer") String consumer, @PathParam("messageId") String messageId) {
        return QuarkusTransaction.requiringNew().call(() -> {
            InboxMessage entry = repository.findEntry(id("consumer", consumer), id("messageId", messageId))
                    .orElseThrow(() -> notFound("no entry " + messageId + " for consumer " + consumer));
            List<AdminViews.Attempt> attempts = InboxAttempt
                    .<InboxAttempt> list("consumerName = ?1 and messageId = ?2 order by attempt", consumer, messageId)
                    .stream().map(AdminViews.Attempt::of).toList();
            return new AdminViews.EntryDetail(AdminViews.Entry.of(entry), entry.body, entry.payloadHash, attempts);
        });
    }

    @POST
    @Path("/inbox/{consumer}/{messageId}/replay")
    @Operation(summary = "Run the entry's stored payload through the inbox again (idempotent)")
    public AdminViews.Replay replay(@PathParam("consumer") String consumer, @PathParam("messageId") String messageId) {
        TxinboxConfig.Consumer settings = consumer(consumer);
        InboxResult result = inbox.replay(consumer, id("messageId", messageId), settings.retry())
                .orElseThrow(() -> notFound("no entry " + messageId + " for consumer " + consumer));
        String statusNow = QuarkusTransaction.requiringNew().call(() -> repository.findEntry(consumer, messageId)
                .map(e -> e.status.name()).orElse(null));
        audit.record("replay", consumer, messageId, result.outcome().label(), result.detail());
        return new AdminViews.Replay(consumer, messageId, result.outcome().label(), result.detail(), statusNow);
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
            moved = queues.redrive(settings.dlq(), settings.queue(), max);
        } catch (RuntimeException e) {
            audit.record("redrive", consumer, settings.dlq(), "failed", e.getMessage());
            throw new WebApplicationException(Response.status(Response.Status.BAD_GATEWAY)
                    .entity(Map.of("error", "redrive failed: " + e.getMessage())).type(MediaType.APPLICATION_JSON).build());
        }
        audit.record("redrive", consumer, settings.dlq(), "moved " + moved, "to " + settings.queue());
        return new AdminViews.Redrive(consumer, settings.dlq(), settings.queue(), moved);
    }

    @POST
    @Path("/streams/{consumer}/{aggregateId}/release")
    @Operation(summary = "Give up on a gap: accept the next parked sequence of the stream and apply from there")
    public AdminViews.GapRelease release(@PathParam("consumer") String consumer,
            @PathParam("aggregateId") String aggregateId) {
        consumer(consumer);
        StreamOrdering.GapRelease release = inbox.releaseGap(consumer, id("aggregateId", aggregateId)).orElseThrow(() -> {
            audit.record("release", consumer, aggregateId, "nothing parked", null);
            return new WebApplicationException(Response.status(Response.Status.CONFLICT)
                    .entity(Map.of("error", "stream " + aggregateId + " of " + consumer + " has no parked event"))
                    .type(MediaType.APPLICATION_JSON).build());
        });
        audit.record("release", consumer, aggregateId, "released",
                "skipped sequences " + release.skippedFrom() + ".." + release.skippedTo() + ", now at " + release.lastAfter());
        return new AdminViews.GapRelease(consumer, aggregateId, release.lastBefore(), release.skippedFrom(),
                release.skippedTo(), release.lastAfter());
    }

    private TxinboxConfig.Consumer consumer(String consumer) {
        TxinboxConfig.Consumer settings = config.consumers().get(id("consumer", consumer));
        if (settings == null || !inbox.hasConsumer(consumer)) {
            throw notFound("no consumer " + consumer);
        }
        return settings;
    }

    private static String id(String name, String value) {
        if (value == null || value.isBlank() || value.length() > MAX_ID_LENGTH) {
            throw badRequest(name + " must be 1-" + MAX_ID_LENGTH + " characters");
        }
        if (value.chars().anyMatch(Character::isISOControl)) {
            throw badRequest(name + " must not contain control characters");
        }
        return value;
    }

    /** A whole number in range, or a 400 that says so (a query parameter JAX-RS failed to convert is a bare 404). */
    private static int number(String name, String value, int min, int max) {
        try {
            int n = Integer.parseInt(value.strip());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // falls through to the same answer
        }
        throw badRequest(name + " must be a whole number from " + min + " to " + max);
    }

    private static InboxStatus status(String value) {
        try {
            return InboxStatus.valueOf(value.toUpperCase());
        } catch (IllegalArgumentException e) {
            throw badRequest("status must be one of " + List.of(InboxStatus.values()));
        }
    }

    private static Instant instant(String name, String value) {
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw badRequest(name + " must be an ISO-8601 instant such as 2026-12-02T10:00:00Z");
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
