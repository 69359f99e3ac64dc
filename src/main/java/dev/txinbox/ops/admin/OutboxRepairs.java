package dev.txinbox.ops.admin;

import java.util.Optional;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;

import dev.txinbox.outbox.OutboxOperations;
import io.quarkus.narayana.jta.QuarkusTransaction;

/** An operator's retry or skip of a waiting outbox stream, written to {@code admin_audit}, from the API or the console. */
@ApplicationScoped
public class OutboxRepairs {

    /** The audit's "consumer" column for outbox actions. */
    public static final String OUTBOX = "outbox";

    private final OutboxOperations operations;
    private final AdminAudit audit;

    public OutboxRepairs(OutboxOperations operations, AdminAudit audit) {
        this.operations = operations;
        this.audit = audit;
    }

    public Optional<OutboxOperations.Waiting> retry(String actor, String aggregateId) {
        return audited(actor, "outbox-retry", "retried", aggregateId, () -> operations.retry(aggregateId));
    }

    public Optional<OutboxOperations.Waiting> skip(String actor, String aggregateId) {
        return audited(actor, "outbox-skip", "skipped", aggregateId, () -> operations.skip(aggregateId));
    }

    /** The repair and its audit line in one transaction: a skip nobody could read about later does not happen. */
    private Optional<OutboxOperations.Waiting> audited(String actor, String action, String outcome, String aggregateId,
            Supplier<Optional<OutboxOperations.Waiting>> repair) {
        return QuarkusTransaction.requiringNew().call(() -> {
            Optional<OutboxOperations.Waiting> done = repair.get();
            done.ifPresentOrElse(w -> audit.record(actor, action, OUTBOX, aggregateId, outcome, "event " + w.eventId()
                    + " (" + w.type() + ", sequence " + w.sequence() + ") after " + w.attempts() + " attempts: "
                    + w.lastError()), () -> audit.record(actor, action, OUTBOX, aggregateId, "not waiting", null));
            return done;
        });
    }
}
