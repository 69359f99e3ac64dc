package dev.txinbox.ops.admin;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.transaction.TransactionSynchronizationRegistry;

import org.jboss.logging.Logger;

import dev.txinbox.sql.AfterCommit;
import dev.txinbox.sql.Columns;
import io.quarkus.narayana.jta.QuarkusTransaction;

/**
 * Writes {@code admin_audit}: every state-changing admin action, with who did it (the admin API's bearer
 * token, or a console session) and what it did; and reads it back for the console.
 */
@ApplicationScoped
public class AdminAudit {

    private static final Logger LOG = Logger.getLogger(AdminAudit.class);

    /** The actor of calls made through the admin API: whoever holds the bearer token. */
    public static final String ADMIN_API = "admin api";

    /** One line of the audit. */
    public record Entry(long id, Instant at, String actor, String action, String consumer, String target,
            String outcome, String detail) {
    }

    /** A page of the audit, newest first. */
    public record Page(List<Entry> entries, int page, int size, boolean hasMore) {
    }

    private final EntityManager entityManager;
    private final TransactionSynchronizationRegistry transaction;

    public AdminAudit(EntityManager entityManager, TransactionSynchronizationRegistry transaction) {
        this.entityManager = entityManager;
        this.transaction = transaction;
    }

    /**
     * Writes one line in the caller's transaction if it has one, so that the line commits with the action it records
     * and neither stands without the other; in a transaction of its own otherwise. The log says it once it has
     * committed.
     */
    public void record(String actor, String action, String consumer, String target, String outcome, String detail) {
        String on = consumer == null ? "" : " " + consumer + (target == null ? "" : "/" + target);
        QuarkusTransaction.joiningExisting().run(() -> {
            entityManager.createNativeQuery("insert into admin_audit (actor, action, consumer, target, outcome, detail)"
                    + " values (?1, ?2, ?3, ?4, ?5, ?6)")
                    .setParameter(1, actor).setParameter(2, action).setParameter(3, consumer).setParameter(4, target)
                    .setParameter(5, outcome).setParameter(6, detail).executeUpdate();
            AfterCommit.run(transaction, () -> LOG.infof("admin %s%s by %s: %s%s", action, on, actor, outcome,
                    detail == null ? "" : " (" + detail + ")"));
        });
    }

    public Page recent(int page, int size) {
        List<Object[]> rows = QuarkusTransaction.requiringNew().call(() -> entityManager.createNativeQuery(
                "select id, at, actor, action, consumer, target, outcome, detail from admin_audit"
                        + " order by at desc, id desc offset ?1 limit ?2", Object[].class)
                .setParameter(1, (long) page * size).setParameter(2, size + 1).getResultList());
        List<Entry> entries = new ArrayList<>();
        for (Object[] row : rows.subList(0, Math.min(size, rows.size()))) {
            entries.add(new Entry(((Number) row[0]).longValue(), Columns.instant(row[1]), (String) row[2],
                    (String) row[3], (String) row[4], (String) row[5], (String) row[6], (String) row[7]));
        }
        return new Page(entries, page, size, rows.size() > size);
    }
}
