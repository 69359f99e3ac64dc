package dev.txinbox.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.txinbox.outbox.OutboxStore.Page;
import dev.txinbox.support.ServiceTest;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The relay's walk over the pending streams, page by page, on a real table: every due head once per pass, in
 * (partition, aggregate) order, whatever page it falls on. The events sit in partitions 100 and up, which the
 * service's own relay (partitions 0–15) never reads.
 */
@QuarkusTest
class RelayPagesTest extends ServiceTest {

    @Inject
    DataSource dataSource;

    private final OutboxStore store = new OutboxStore(() -> dataSource.getConnection(), false);

    @BeforeEach
    void openSession() throws SQLException {
        store.open();
    }

    @AfterEach
    void removeEvents() {
        store.close();
        db.execute("delete from outbox_events where partition >= 100");
    }

    /**
     * {@code aggregates} streams in {@code partitions} from {@code first}: sequence 1 published, 2 and 3 pending;
     * where {@code backingOff} holds (every n-th aggregate, 0 for none) the head waits for a later attempt.
     */
    private void streams(int first, int partitions, int aggregates, int backingOff) {
        db.execute("""
                insert into outbox_events (id, aggregatetype, aggregateid, type, timestamp, payload, sequence,
                                           partition, attempts, next_attempt_at, published_at)
                select gen_random_uuid(), 'order', 'walk-%1$d-' || n, 'E' || s, now(), '{}', s, %1$d + n %% %2$d,
                       case when s = 2 and %4$d > 0 and n %% %4$d = 0 then 1 else 0 end,
                       case when s = 2 and %4$d > 0 and n %% %4$d = 0 then now() + interval '1 hour' end,
                       case when s = 1 then now() end
                  from generate_series(1, %3$d) n, generate_series(1, 3) s
                """.formatted(first, partitions, aggregates, backingOff));
    }

    /** What one pass from the first aggregate reads: the pages, up to the short one that ends it. */
    private List<Page> pass(TreeSet<Integer> owned) throws SQLException {
        List<Page> pages = new ArrayList<>();
        do {
            pages.add(store.nextPage(owned));
        } while (!pages.get(pages.size() - 1).wrapped() && pages.size() < 100);
        return pages;
    }

    private static String key(Object partition, Object aggregateId, Object sequence) {
        return partition + "/" + aggregateId + "/" + sequence;
    }

    private static List<String> heads(List<Page> pages) {
        return pages.stream().flatMap(p -> p.heads().stream())
                .map(h -> key(h.partition(), h.aggregateId(), h.sequence())).toList();
    }

    private List<String> dueHeads(String where) {
        return db.rows("select partition, aggregateid, sequence from outbox_events where sequence = 2"
                + " and next_attempt_at is null and " + where + " order by partition, aggregateid").stream()
                .map(row -> key(row.get("partition"), row.get("aggregateid"), row.get("sequence"))).toList();
    }

    @Test
    void aPassReadsEveryDueHeadOnceInOrderAcrossPagesAndPartitions() throws SQLException {
        streams(100, 5, 450, 7);
        TreeSet<Integer> owned = new TreeSet<>(List.of(100, 101, 102, 103, 104));
        List<Page> first = pass(owned);
        assertTrue(first.size() >= 3, "450 streams take more than two pages of " + OutboxStore.HEADS_PER_ROUND);
        assertTrue(first.get(0).fromStart());
        assertFalse(first.get(1).fromStart());
        List<String> expected = dueHeads("partition between 100 and 104");
        assertEquals(450 - 450 / 7, expected.size());
        assertEquals(expected, heads(first), "each due head once, none backing off, none behind its head");
        assertEquals(expected, heads(pass(owned)), "the next pass begins again at the first aggregate");

        List<Page> some = pass(new TreeSet<>(List.of(101, 103)));
        assertEquals(dueHeads("partition in (101, 103)"), heads(some), "only the owned partitions");
    }

    @Test
    void pagesOfHeadsBackingOffDoNotEndThePassBeforeTheDueOnesBehindThem() throws SQLException {
        streams(110, 1, 450, 1);
        streams(111, 1, 5, 0);
        List<Page> pages = pass(new TreeSet<>(List.of(110, 111)));
        assertTrue(pages.get(0).heads().isEmpty(), "the first page holds only heads backing off");
        assertTrue(pages.get(0).more(false), "and the relay reads on at once");
        assertEquals(dueHeads("partition in (110, 111)"), heads(pages));
        assertEquals(5, heads(pages).size());
    }
}
