package dev.txinbox.ops.rest;

import java.util.List;
import java.util.Map;

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
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.ops.admin.AdminAudit;
import dev.txinbox.ops.admin.AdminInput;
import dev.txinbox.ops.admin.OutboxRepairs;
import dev.txinbox.outbox.EmbeddedRelay;
import dev.txinbox.outbox.OutboxOperations;
import dev.txinbox.outbox.OutboxRelay;
import dev.txinbox.ops.metrics.OutboxStatistics;

/** The outbox in the operator API: what is pending, the waiting streams, and a retry or skip of one (audited). */
@Path("/admin/outbox")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "admin", description = "Inbox inspection and repair; needs Authorization: Bearer $TXINBOX_ADMIN_TOKEN")
@SecurityRequirement(name = "admin-token")
public class OutboxAdminResource {

    static final int MAX_WAITING = 500;

    public record Overview(String queue, String relay, String error, List<Integer> ownedPartitions, long pending,
            long oldestPendingSeconds, long waitingStreams, List<OutboxOperations.Waiting> waiting) {
    }

    public record Action(String aggregateId, String action, OutboxOperations.Waiting event) {
    }

    private final OutboxOperations operations;
    private final OutboxStatistics statistics;
    private final EmbeddedRelay relay;
    private final OutboxRepairs repairs;
    private final TxinboxConfig.Outbox config;

    public OutboxAdminResource(OutboxOperations operations, OutboxStatistics statistics, EmbeddedRelay relay,
            OutboxRepairs repairs, TxinboxConfig config) {
        this.operations = operations;
        this.statistics = statistics;
        this.relay = relay;
        this.repairs = repairs;
        this.config = config.outbox();
    }

    @GET
    @Operation(summary = "Pending events, the oldest one's age, the relay's state and the waiting streams")
    public Overview overview() {
        OutboxStatistics.Pending pending = statistics.latest();
        OutboxRelay.State state = relay.relay().map(OutboxRelay::state).orElse(null);
        return new Overview(config.queue(), state == null ? "disabled" : state.publishing().name().toLowerCase(),
                state == null ? null : state.error(), state == null ? List.of() : List.copyOf(state.owned()),
                pending.pending(), Math.round(pending.oldestPendingSeconds()), pending.waitingStreams(),
                operations.waiting(50));
    }

    @GET
    @Path("/streams")
    @Operation(summary = "Aggregates waiting at an event the broker refused, oldest first (limit at most 500)")
    public List<OutboxOperations.Waiting> waiting(@QueryParam("limit") @DefaultValue("100") String limit) {
        return operations.waiting(valid(() -> AdminInput.number("limit", limit, 1, MAX_WAITING)));
    }

    @POST
    @Path("/streams/{aggregateId}/retry")
    @Operation(summary = "Send the aggregate's waiting event again now")
    public Action retry(@PathParam("aggregateId") String aggregateId) {
        String id = valid(() -> AdminInput.aggregateId("aggregateId", aggregateId));
        OutboxOperations.Waiting waiting = repairs.retry(AdminAudit.ADMIN_API, id).orElseThrow(() -> notWaiting(id));
        return new Action(id, "retry", waiting);
    }

    @POST
    @Path("/streams/{aggregateId}/skip")
    @Operation(summary = "Give up on the aggregate's waiting event: it is never sent, the next one goes")
    public Action skip(@PathParam("aggregateId") String aggregateId) {
        String id = valid(() -> AdminInput.aggregateId("aggregateId", aggregateId));
        OutboxOperations.Waiting waiting = repairs.skip(AdminAudit.ADMIN_API, id).orElseThrow(() -> notWaiting(id));
        return new Action(id, "skip", waiting);
    }

    private static WebApplicationException notWaiting(String aggregateId) {
        String why = "aggregate " + aggregateId + " waits at no refused event";
        return new WebApplicationException(why, Response.status(Response.Status.CONFLICT)
                .type(MediaType.APPLICATION_JSON).entity(Map.of("error", why)).build());
    }

    private static <T> T valid(java.util.function.Supplier<T> check) {
        try {
            return check.get();
        } catch (IllegalArgumentException e) {
            throw new WebApplicationException(e.getMessage(), Response.status(Response.Status.BAD_REQUEST)
                    .type(MediaType.APPLICATION_JSON).entity(Map.of("error", e.getMessage())).build());
        }
    }
}
