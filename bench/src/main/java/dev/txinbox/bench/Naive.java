package dev.txinbox.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.txinbox.harness.Db;
import dev.txinbox.harness.Sqs;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The naive consumer: the seed article's algorithm, as people write it by hand. One poller, one
 * transaction per message (insert the id, skip duplicates; lock the stream row, skip anything not newer;
 * apply; store the sequence), then one DeleteMessage. Sequential. It keeps the article's flaw: an event
 * that arrives before its predecessor is applied at once, and the predecessor is then dropped as stale.
 * Poison messages are deleted and counted (the article has no dead-letter path). It prints {@link Progress}
 * lines, so that a backlog run can tell when its warm-up is done.
 * <p>
 * Usage: Naive endpoint queueUrl jdbcUrl expectedMessages
 */
public final class Naive {

    private static final ObjectMapper JSON = new ObjectMapper();

    static final String SCHEMA = """
            create table if not exists inbox_messages (message_id text primary key, processed_at timestamptz not null);
            create table if not exists order_stream_state (order_id text primary key, last_sequence bigint not null);
            create table if not exists orders (id text primary key, customer_id text, status text not null,
                amount bigint not null, currency text not null, paid_amount bigint, paid_at timestamptz);
            create table if not exists payment_audit (id bigserial primary key, order_id text not null,
                message_id text not null, amount bigint not null, payload text not null);
            """;

    public static void main(String[] args) throws Exception {
        String endpoint = args[0];
        String queueUrl = args[1];
        long expected = Long.parseLong(args[3]);
        AtomicLong handled = new AtomicLong();
        AtomicLong requests = new AtomicLong();
        long poison = 0;
        long lastCommit = 0;
        try (Sqs sqs = new Sqs(endpoint, 2); Connection db = Db.connect(args[2])) {
            try (Statement ddl = db.createStatement()) {
                ddl.execute(SCHEMA);
            }
            db.setAutoCommit(false);
            Progress.report(handled, requests);
            while (handled.get() < expected) {
                List<Message> messages = sqs.client().receiveMessage(r -> r.queueUrl(queueUrl)
                        .maxNumberOfMessages(10).waitTimeSeconds(1)).messages();
                requests.incrementAndGet();
                for (Message message : messages) {
                    try {
                        process(db, JSON.readTree(message.body()));
                        db.commit();
                        lastCommit = System.currentTimeMillis();
                    } catch (SQLException e) {
                        db.rollback();
                        continue; // left for redelivery, as the article does
                    } catch (Exception e) {
                        db.rollback();
                        poison++;
                    }
                    sqs.client().deleteMessage(r -> r.queueUrl(queueUrl).receiptHandle(message.receiptHandle()));
                    requests.incrementAndGet();
                    handled.incrementAndGet();
                }
            }
            Progress.summary(Map.of("handled", handled.get(), "poison", poison, "sqsRequests", requests.get(),
                    "lastCommitMillis", lastCommit));
            Thread.sleep(1000); // the harness reads the CPU of this consumer's PostgreSQL backend while it is there
        }
    }

    private static void process(Connection db, JsonNode event) throws SQLException {
        String eventId = event.get("eventId").asText();
        String orderId = event.get("aggregateId").asText();
        long sequence = event.get("sequence").asLong();
        String type = event.get("type").asText();
        JsonNode payload = event.get("payload");
        try (PreparedStatement claim = db.prepareStatement("insert into inbox_messages (message_id, processed_at)"
                + " values (?, now()) on conflict (message_id) do nothing returning message_id")) {
            claim.setString(1, eventId);
            try (ResultSet rs = claim.executeQuery()) {
                if (!rs.next()) {
                    return; // duplicate
                }
            }
        }
        long last = 0;
        try (PreparedStatement lock = db.prepareStatement(
                "select last_sequence from order_stream_state where order_id = ? for update")) {
            lock.setString(1, orderId);
            try (ResultSet rs = lock.executeQuery()) {
                if (rs.next()) {
                    last = rs.getLong(1);
                }
            }
        }
        if (sequence <= last) {
            return; // "out-of-order or stale event ignored"
        }
        switch (type) {
            case "ORDER_CREATED" -> update(db, "insert into orders (id, customer_id, status, amount, currency)"
                    + " values (?, ?, 'CREATED', ?, ?) on conflict (id) do nothing", orderId,
                    payload.get("customerId").asText(), payload.get("amount").asLong(), payload.get("currency").asText());
            case "ORDER_PAID" -> {
                update(db, "update orders set status = 'PAID', paid_amount = ?, paid_at = now() where id = ?",
                        payload.get("amount").asLong(), orderId);
                update(db, "insert into payment_audit (order_id, message_id, amount, payload) values (?, ?, ?, ?)",
                        orderId, eventId, payload.get("amount").asLong(), payload.toString());
            }
            case "ORDER_SHIPPED" -> update(db, "update orders set status = 'SHIPPED' where id = ?", orderId);
            case "ORDER_CANCELLED" -> update(db, "update orders set status = 'CANCELLED' where id = ?", orderId);
            default -> throw new IllegalArgumentException("unknown type " + type);
        }
        update(db, "insert into order_stream_state (order_id, last_sequence) values (?, ?)"
                + " on conflict (order_id) do update set last_sequence = excluded.last_sequence", orderId, sequence);
    }

    private static void update(Connection db, String sql, Object... values) throws SQLException {
        try (PreparedStatement statement = db.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                statement.setObject(i + 1, values[i]);
            }
            statement.executeUpdate();
        }
    }
}
