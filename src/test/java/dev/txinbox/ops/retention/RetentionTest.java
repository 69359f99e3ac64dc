package dev.txinbox.ops.retention;

import static dev.txinbox.support.Events.created;
import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.txinbox.support.Metrics;
import dev.txinbox.support.ServiceTest;
import io.quarkus.test.junit.QuarkusTest;

/** The retention job against a large table, while the service keeps consuming. */
@QuarkusTest
class RetentionTest extends ServiceTest {

    private static final String CONSUMER = "retention-test";

    @Inject
    RetentionJob job;

    @Inject
    DataSource dataSource;

    @Test
    void expiredRowsGoInBatchesWhileMessagesKeepFlowingAndWaitingRowsStay() throws Exception {
        seed("PROCESSED", "old", 100_000, "20 days");
        seed("STALE", "old-stale", 500, "15 days");
        seed("REJECTED", "old-rejected", 500, "15 days");
        seed("DEAD", "old-dead", 300, "31 days");
        seed("DEAD", "young-dead", 200, "20 days");
        seed("PARKED", "old-parked", 100, "60 days");
        seed("FAILED", "old-failed", 100, "60 days");
        seed("PROCESSED", "young", 1_000, "13 days");

        List<String> orders = IntStream.range(0, 30).mapToObj(i -> unique("ord")).toList();
        CompletableFuture<RetentionJob.Run> retention = CompletableFuture.supplyAsync(job::run);
        List<String> events = orders.stream().map(order -> {
            String event = unique("evt");
            queues.send("orders.fifo", order, created(event, order, 1L, 100));
            return event;
        }).toList();
        RetentionJob.Run run = retention.get();
        eventually().until(() -> events.stream().allMatch(e -> "PROCESSED".equals(db.inboxStatus("orders", e))));

        assertEquals(101_300L, run.deleted().get(CONSUMER));
        for (String expired : new String[] { "old-r_%", "old-stale-%", "old-rejected-%", "old-dead-%" }) {
            assertEquals(0, count(expired), expired);
        }
        assertEquals(200, count("young-dead-%"));
        assertEquals(1_000, count("young-r_%"));
        assertEquals(100, db.count("select count(*) from inbox_messages where consumer_name = ? and status = 'PARKED'", CONSUMER));
        assertEquals(100, db.count("select count(*) from inbox_messages where consumer_name = ? and status = 'FAILED'", CONSUMER));
        assertTrue(Metrics.scrape().contains("txinbox_retention_deleted_total{consumer=\"" + CONSUMER + "\"} 101300.0"));
    }

    @Test
    void onlyOneInstanceRunsItAtATime() throws Exception {
        seed("PROCESSED", "locked", 10, "20 days");
        try (Connection other = dataSource.getConnection()) {
            other.setAutoCommit(false);
            try (PreparedStatement lock = other.prepareStatement("select pg_advisory_xact_lock(?)")) {
                lock.setLong(1, RetentionJob.LOCK_KEY);
                lock.execute();
            }
            RetentionJob.Run run = job.run();
            assertTrue(run.lockedOut());
            assertEquals(10, count("locked-%"));
            other.rollback();
        }
        job.run();
        assertEquals(0, count("locked-%"));
    }

    private long count(String pattern) {
        return db.count("select count(*) from inbox_messages where consumer_name = ? and message_id like ?", CONSUMER, pattern);
    }

    private void seed(String status, String prefix, int rows, String age) throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
                "insert into inbox_messages (consumer_name, message_id, status, payload_hash, body, received_at,"
                        + " processed_at) select ?, ? || '-' || g, ?, 'seed', '{}', now() - cast(? as interval),"
                        + " case when ? in ('PARKED', 'FAILED') then null else now() - cast(? as interval) end"
                        + " from generate_series(1, ?) g")) {
            ps.setString(1, CONSUMER);
            ps.setString(2, prefix + "-" + unique("r"));
            ps.setString(3, status);
            ps.setString(4, age);
            ps.setString(5, status);
            ps.setString(6, age);
            ps.setInt(7, rows);
            ps.executeUpdate();
        }
    }
}
