package dev.txinbox.orders;

import static dev.txinbox.support.Events.created;
import static dev.txinbox.support.Events.paid;
import static dev.txinbox.support.Events.shipped;
import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import jakarta.inject.Inject;
import jakarta.persistence.EntityManagerFactory;

import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.txinbox.inbox.EventParser;
import dev.txinbox.inbox.HandlerResult;
import dev.txinbox.inbox.InboxEvent;
import dev.txinbox.support.ServiceTest;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The orders handler's prefetch: one query for the batch's orders, after which every apply finds its order
 * without asking the database, absent ones included; and whatever the hook loaded, fewer or more than the
 * batch needs, the outcome is the same.
 */
@QuarkusTest
class OrderPrefetchTest extends ServiceTest {

    @Inject
    OrderEventHandler handler;

    @Inject
    EventParser parser;

    @Inject
    EntityManagerFactory entityManagerFactory;

    private String existing;
    private String fresh;
    private String bystander;
    private List<InboxEvent> batch;

    @BeforeEach
    void anExistingOrderABystanderAndABatch() {
        existing = unique("ord");
        fresh = unique("ord");
        bystander = unique("ord");
        QuarkusTransaction.requiringNew().run(() -> {
            handler.apply(event(created(unique("evt"), existing, 1L, 700)));
            handler.apply(event(created(unique("evt"), bystander, 1L, 900)));
        });
        batch = List.of(
                event(paid(unique("evt"), existing, 2L, 700)),
                event(created(unique("evt"), fresh, 1L, 300)),
                event(paid(unique("evt"), fresh, 2L, 300)),
                event(shipped(unique("evt"), existing, 3L)),
                event(created(unique("evt"), fresh, 1L, 300))); // a second creation: rejected, the order exists
    }

    @Test
    void afterThePrefetchNoApplyAsksForItsOrder() {
        Statistics statistics = statistics();
        List<String> outcomes = QuarkusTransaction.requiringNew().call(() -> {
            long statements = statistics.getPrepareStatementCount();
            handler.prefetch(batch);
            assertEquals(statements + 1, statistics.getPrepareStatementCount(), "one statement for the whole batch");
            long loads = statistics.getEntityLoadCount();
            List<String> applied = applyAll();
            assertEquals(loads, statistics.getEntityLoadCount(), "no order loaded after the prefetch");
            return applied;
        });
        assertEquals(expected(), outcomes);
        assertFinalState();
    }

    @Test
    void aPrefetchOfFewerOrdersThanTheBatchNeedsOnlyMovesTheLookUps() {
        Statistics statistics = statistics();
        List<String> outcomes = QuarkusTransaction.requiringNew().call(() -> {
            handler.prefetch(batch.subList(1, 3)); // only the fresh order: the existing one is looked up by id
            long loads = statistics.getEntityLoadCount();
            List<String> applied = applyAll();
            assertEquals(loads + 1, statistics.getEntityLoadCount(), "the existing order, loaded once by id");
            return applied;
        });
        assertEquals(expected(), outcomes);
        assertFinalState();
    }

    @Test
    void aPrefetchOfMoreOrdersThanTheBatchNeedsChangesNothingElse() {
        List<InboxEvent> more = new ArrayList<>(batch);
        more.add(event(shipped(unique("evt"), bystander, 2L)));
        more.add(event(paid(unique("evt"), unique("ord"), 2L, 5))); // an order nobody has
        List<String> outcomes = QuarkusTransaction.requiringNew().call(() -> {
            handler.prefetch(more);
            return applyAll();
        });
        assertEquals(expected(), outcomes);
        assertFinalState();
        assertEquals("CREATED", db.row("select status from orders where id = ?", bystander).get("status"));
    }

    private List<String> applyAll() {
        List<String> outcomes = new ArrayList<>();
        for (InboxEvent event : batch) {
            HandlerResult result = handler.apply(event);
            outcomes.add(result.applied() ? "applied" : "rejected");
        }
        return outcomes;
    }

    private static List<String> expected() {
        return List.of("applied", "applied", "applied", "applied", "rejected");
    }

    private void assertFinalState() {
        assertEquals("SHIPPED", db.row("select status from orders where id = ?", existing).get("status"));
        assertEquals("PAID", db.row("select status from orders where id = ?", fresh).get("status"));
        assertEquals(1, db.count("select count(*) from payment_audit where order_id = ?", existing));
        assertEquals(1, db.count("select count(*) from payment_audit where order_id = ?", fresh));
        assertTrue(db.count("select count(*) from orders where id = ?", fresh) == 1);
    }

    private InboxEvent event(String body) {
        return parser.parse(body, null);
    }

    private Statistics statistics() {
        Statistics statistics = entityManagerFactory.unwrap(SessionFactory.class).getStatistics();
        assertTrue(statistics.isStatisticsEnabled(), "the test profile enables Hibernate's statistics");
        return statistics;
    }
}
