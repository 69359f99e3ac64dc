package dev.txinbox.ops;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;

import org.jboss.logging.Logger;

import io.quarkus.narayana.jta.QuarkusTransaction;

/** Writes {@code admin_audit}: every state-changing admin call, with what it did. */
@ApplicationScoped
public class AdminAudit {

    private static final Logger LOG = Logger.getLogger(AdminAudit.class);

    private final EntityManager entityManager;

    public AdminAudit(EntityManager entityManager) {
        this.entityManager = entityManager;
    }

    public void record(String action, String consumer, String target, String outcome, String detail) {
        LOG.infof("admin %s %s/%s: %s %s", action, consumer, target, outcome, detail == null ? "" : detail);
        QuarkusTransaction.requiringNew().run(() -> entityManager.createNativeQuery(
                "insert into admin_audit (action, consumer, target, outcome, detail) values (?1, ?2, ?3, ?4, ?5)")
                .setParameter(1, action).setParameter(2, consumer).setParameter(3, target)
                .setParameter(4, outcome).setParameter(5, detail).executeUpdate());
    }
}
