package dev.txinbox.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.awaitility.Awaitility;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.Header;
import io.debezium.engine.format.Json;
import io.debezium.engine.format.KeyValueHeaderChangeEventFormat;
import io.debezium.engine.format.SerializationFormat;
import io.debezium.engine.format.SimpleString;

/**
 * The outbox table is readable by Debezium's outbox event router (docs/OUTBOX.md, "When you outgrow the polling
 * relay"): Debezium's embedded engine runs the PostgreSQL connector (pgoutput, a publication of the outbox table
 * only, a replication slot of its own, offsets in memory) with the router, configured by the very file a Debezium
 * Server deployment uses ({@code deploy/debezium/application.properties}), over events written with plain JDBC.
 * The routed records must be what a Kafka consumer downstream relies on: topic from the aggregate type, key = the
 * aggregate id, value = the payload, the event id, type and sequence as headers, per aggregate in sequence order
 * (which is commit order), nothing from a rolled-back transaction, nothing for deletes or updates, and at the
 * switch from the relay only what it had not published yet.
 *
 * <p>Needs {@code wal_level=logical} (dev/postgres-setup sets it) and a role that may replicate: the connector
 * connects as the admin role ({@code PGUSER}, default postgres, a superuser here); the events are written as the
 * service's role, which owns the table and its publication. Not a Quarkus test: no service runs.
 */
class DebeziumOutboxRouterTest {

    private static final Path SERVER_CONFIG = Path.of("deploy/debezium/application.properties");
    private static final Path CONNECT_CONFIG = Path.of("deploy/debezium/outbox-connector.json");

    private static final String HOST = env("PGHOST", "127.0.0.1");
    private static final String PORT = env("PGPORT", "5432");
    private static final String ADMIN = env("PGUSER", "postgres");
    private static final String ADMIN_PASSWORD = System.getenv("PGPASSWORD");
    private static final String APP_USER = "txinbox";
    /** A database and a replication slot of this test's own (slots are per cluster), beside TXINBOX_TEST_DB. */
    private static final String DATABASE = env("TXINBOX_TEST_DB", "txinbox_test") + "_debezium";
    private static final String SLOT = DATABASE;

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One outbox row as written, and so as its routed record must read. */
    record Event(UUID id, String aggregateType, String aggregateId, String type, long sequence, String payload) {
    }

    /** One routed record, reduced to what a consumer sees. */
    record Routed(String topic, String key, JsonNode value, Map<String, JsonNode> headers) {
        UUID id() {
            return UUID.fromString(headers.get("id").asText());
        }

        String describe() {
            return topic + " " + key + " #" + headers.get("sequence") + " " + headers.get("eventType") + " "
                    + headers.get("id");
        }
    }

    @Test
    void theRouterPublishesTheOutboxKeyedByAggregateInCommitOrderAndNothingElse() throws Exception {
        requireLogicalDecoding();
        recreateDatabase();
        List<Event> expected = new ArrayList<>();
        List<UUID> never = new ArrayList<>();
        List<Routed> routed;

        try (Connection app = connect(DATABASE, APP_USER, APP_USER); Connection other = connect(DATABASE, APP_USER, APP_USER)) {
            app.setAutoCommit(false);
            other.setAutoCommit(false);
            createOutboxTable();
            execute(app, "create publication txinbox_outbox for table outbox_events");
            app.commit();

            // What the relay had done before the switch: o-0's first event published, its second still pending.
            never.add(insert(app, event("order", "o-0", 1, "OrderAccepted", "{\"orderId\": \"o-0\"}")).id());
            execute(app, "update outbox_events set published_at = now()");
            // An event an operator skipped: never sent either.
            never.add(insert(app, event("order", "o-5", 1, "OrderAccepted", "{\"orderId\": \"o-5\"}")).id());
            execute(app, "update outbox_events set skipped_at = now() where aggregateid = 'o-5'");
            expected.add(insert(app, event("order", "o-0", 2, "OrderPaid", "{\"orderId\": \"o-0\", \"amount\": 10}")));
            app.commit();

            try (RunningEngine engine = RunningEngine.start(engineProperties())) {
                // The initial snapshot publishes the pending event (it arrives once the slot exists, so every row
                // written from now on is streamed).
                List<Routed> snapshot = engine.await(1, "the snapshot of what the relay had not published");

                // Several aggregates, several events each, one transaction with events of two aggregates.
                expected.add(insert(app, event("order", "o-1", 1, "OrderAccepted",
                        "{\"orderId\": \"o-1\", \"lines\": [{\"sku\": \"A-1\", \"qty\": 2}], \"note\": \"gr\u00fc\u00dfe \\\"quoted\\\"\"}")));
                expected.add(insert(app, event("order", "o-2", 1, "OrderAccepted", "{\"orderId\": \"o-2\"}")));
                app.commit();
                expected.add(insert(app, event("order", "o-1", 2, "OrderPaid", "{\"orderId\": \"o-1\", \"amount\": 12.5}")));
                expected.add(insert(app, event("order", "o-1", 3, "OrderShipped", "{\"orderId\": \"o-1\", \"carrier\": null}")));
                expected.add(insert(app, event("customer", "c-1", 1, "CustomerRegistered", "{\"customerId\": \"c-1\"}")));
                app.commit();

                // A transaction that rolls back: its events are never routed; o-2's next event takes its number.
                never.add(insert(app, event("order", "o-2", 2, "OrderCancelled", "{\"orderId\": \"o-2\"}")).id());
                never.add(insert(app, event("order", "o-3", 1, "OrderAccepted", "{\"orderId\": \"o-3\"}")).id());
                app.rollback();
                expected.add(insert(app, event("order", "o-2", 2, "OrderPaid", "{\"orderId\": \"o-2\", \"amount\": 3}")));
                app.commit();

                // Records come in commit order, not in the order rows were written: o-3's transaction writes first
                // and commits last.
                Event o3 = insert(other, event("order", "o-3", 1, "OrderAccepted", "{\"orderId\": \"o-3\"}"));
                expected.add(insert(app, event("order", "o-1", 4, "OrderDelivered", "{\"orderId\": \"o-1\"}")));
                app.commit();
                other.commit();
                expected.add(o3);

                // What the relay's bookkeeping and the retention job do to the table: an update and deletes. None of
                // them is an event.
                execute(app, "update outbox_events set attempts = attempts + 1, published_at = now() where aggregateid = 'o-2'");
                execute(app, "delete from outbox_events where aggregateid = 'o-1' and sequence <= 2");
                execute(app, "delete from outbox_events where aggregateid = 'o-0'");
                app.commit();
                // The last event: once it is routed, anything the statements above produced would have been too.
                expected.add(insert(app, event("order", "o-4", 1, "OrderAccepted", "{\"orderId\": \"o-4\"}")));
                app.commit();

                List<Routed> streamed = engine.await(expected.size() - 1, "the streamed events");
                routed = new ArrayList<>(snapshot);
                routed.addAll(streamed);
                // Nothing more arrives after the last event.
                routed.addAll(engine.drain(Duration.ofSeconds(2)));
            }
        } finally {
            dropSlot();
        }

        assertRouted(expected, never, routed);
    }

    /** The Kafka Connect form of the connector says the same as the Debezium Server form this test runs. */
    @Test
    void theKafkaConnectConfigurationSaysWhatTheDebeziumServerOneSays() throws IOException {
        Map<String, String> server = new TreeMap<>(connectorSettings(serverConfig(), Map.of()));
        // Worker-level in Kafka Connect (offsets live in Kafka there).
        server.keySet().removeIf(k -> k.startsWith("offset."));
        Map<String, String> connect = new TreeMap<>();
        JSON.readTree(CONNECT_CONFIG.toFile()).get("config").fields()
                .forEachRemaining(e -> connect.put(e.getKey(), e.getValue().asText().replaceAll("\\$\\{env:", "\\${")));
        // Kafka Connect's own: one task, and the converters that Debezium Server's simplestring format stands for.
        assertEquals("1", connect.remove("tasks.max"));
        assertEquals("org.apache.kafka.connect.storage.StringConverter", connect.remove("key.converter"));
        assertEquals("org.apache.kafka.connect.storage.StringConverter", connect.remove("value.converter"));
        Properties formats = serverConfig();
        assertEquals("simplestring", formats.getProperty("debezium.format.key"));
        assertEquals("simplestring", formats.getProperty("debezium.format.value"));
        assertEquals(server, connect);
    }

    // ---------------------------------------------------------------------------------------------------------
    // what the records must be

    private static void assertRouted(List<Event> expected, List<UUID> never, List<Routed> routed) {
        List<String> want = expected.stream()
                .map(e -> "outbox.event." + e.aggregateType() + " " + e.aggregateId() + " #" + e.sequence() + " \""
                        + e.type() + "\" \"" + e.id() + "\"")
                .toList();
        List<String> got = routed.stream().map(Routed::describe).toList();
        assertEquals(want, got, "the routed records (topic, key, sequence, type, id), in the order routed");

        Map<UUID, Event> byId = new HashMap<>();
        expected.forEach(e -> byId.put(e.id(), e));
        Map<String, Long> lastSequence = new HashMap<>();
        for (Routed r : routed) {
            Event e = byId.get(r.id());
            assertNotNull(e, "a record for an event never committed: " + r.describe());
            assertTrue(!never.contains(r.id()), "a rolled-back or already published event was routed: " + r.describe());
            assertEquals("outbox.event." + e.aggregateType(), r.topic(), "topic from aggregatetype");
            assertEquals(e.aggregateId(), r.key(), "key = aggregate id");
            assertEquals(readJson(e.payload()), r.value(), "value = the payload, " + r.describe());
            assertEquals(e.id().toString(), r.headers().get("id").asText(), "header id = event id");
            assertEquals(e.type(), r.headers().get("eventType").asText(), "header eventType = type");
            assertEquals(e.sequence(), r.headers().get("sequence").asLong(), "header sequence");
            Long previous = lastSequence.put(e.aggregateId(), e.sequence());
            if (previous != null) {
                assertEquals(previous + 1, e.sequence(), "per aggregate, sequence order with no gap: " + r.describe());
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // the database

    /** The outbox table exactly as the service has it: the project's Flyway migrations, V6__outbox.sql among them. */
    private static void createOutboxTable() {
        Flyway.configure().dataSource(url(DATABASE), APP_USER, APP_USER)
                .locations("filesystem:src/main/resources/db/migration").load().migrate();
    }

    private static Event event(String aggregateType, String aggregateId, long sequence, String type, String payload) {
        return new Event(UUID.randomUUID(), aggregateType, aggregateId, type, sequence, payload);
    }

    private static Event insert(Connection c, Event e) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("insert into outbox_events (id, aggregatetype, aggregateid, type,"
                + " timestamp, payload, sequence, partition) values (?, ?, ?, ?, now(), ?::jsonb, ?, ?)")) {
            ps.setObject(1, e.id());
            ps.setString(2, e.aggregateType());
            ps.setString(3, e.aggregateId());
            ps.setString(4, e.type());
            ps.setString(5, e.payload());
            ps.setLong(6, e.sequence());
            ps.setInt(7, Math.floorMod(e.aggregateId().hashCode(), 16));
            ps.executeUpdate();
        }
        return e;
    }

    /** Fails, naming the script that fixes it, where this PostgreSQL cannot decode its WAL logically. */
    private static void requireLogicalDecoding() throws SQLException {
        try (Connection c = connect("postgres", ADMIN, ADMIN_PASSWORD)) {
            String walLevel = show(c, "wal_level");
            if (!"logical".equals(walLevel)) {
                fail("PostgreSQL at " + HOST + ":" + PORT + " runs with wal_level=" + walLevel + "; Debezium's connector"
                        + " needs logical. Run dev/test-setup (`./mvnw verify` does): it sets wal_level=logical and restarts the cluster once.");
            }
            for (String setting : List.of("max_replication_slots", "max_wal_senders")) {
                if (Integer.parseInt(show(c, setting)) < 1) {
                    fail("PostgreSQL runs with " + setting + "=0; logical replication needs at least 1");
                }
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                    "select rolsuper or rolreplication from pg_roles where rolname = current_user")) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    fail("role " + ADMIN + " (PGUSER) may not replicate: the connector needs a superuser or a role"
                            + " with REPLICATION (docs/OUTBOX.md)");
                }
            }
        }
    }

    /** Drops the slot (a previous run's too) and the database, then creates the database afresh. */
    private static void recreateDatabase() throws SQLException, InterruptedException {
        dropSlot();
        try (Connection c = connect("postgres", ADMIN, ADMIN_PASSWORD); Statement s = c.createStatement()) {
            if (!s.executeQuery("select 1 from pg_roles where rolname = '" + APP_USER + "'").next()) {
                s.execute("create role " + APP_USER + " login password '" + APP_USER + "'");
            }
            s.execute("drop database if exists " + DATABASE + " with (force)");
            s.execute("create database " + DATABASE + " owner " + APP_USER);
        }
    }

    /** Drops this test's replication slot if it exists, once no connector holds it any more. */
    private static void dropSlot() throws SQLException {
        try (Connection c = connect("postgres", ADMIN, ADMIN_PASSWORD)) {
            Awaitility.await("replication slot " + SLOT + " released").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200)).until(() -> slotGone(c));
        }
    }

    /** Whether the slot is gone: it never was, or nobody holds it and it could be dropped now. */
    private static boolean slotGone(Connection c) throws SQLException {
        Boolean active = null;
        try (PreparedStatement ps = c.prepareStatement("select active from pg_replication_slots where slot_name = ?")) {
            ps.setString(1, SLOT);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    active = rs.getBoolean(1);
                }
            }
        }
        if (active == null) {
            return true;
        }
        if (active) {
            return false;
        }
        try (PreparedStatement ps = c.prepareStatement("select pg_drop_replication_slot(?)")) {
            ps.setString(1, SLOT);
            ps.execute();
            return true;
        } catch (SQLException e) {
            // taken again in between (or dropped by the connector itself): look again
            return false;
        }
    }

    private static String show(Connection c, String setting) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("show " + setting)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static Connection connect(String database, String user, String password) throws SQLException {
        return DriverManager.getConnection(url(database), user, password);
    }

    private static String url(String database) {
        return "jdbc:postgresql://" + HOST + ":" + PORT + "/" + database;
    }

    // ---------------------------------------------------------------------------------------------------------
    // the connector's configuration: deploy/debezium/application.properties, as Debezium Server reads it

    private static Properties serverConfig() throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(SERVER_CONFIG)) {
            p.load(r);
        }
        return p;
    }

    /**
     * The engine properties Debezium Server makes of its file: debezium.source.* and debezium.transforms*
     * unprefixed, debezium.format.{key,value,header}.* as converter settings; ${VAR}s resolved from
     * {@code variables} (left as they are where absent).
     */
    private static Map<String, String> connectorSettings(Properties file, Map<String, String> variables) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : file.stringPropertyNames()) {
            String value = resolve(file.getProperty(name), variables);
            if (name.startsWith("debezium.source.")) {
                out.put(name.substring("debezium.source.".length()), value);
            } else if (name.equals("debezium.transforms") || name.startsWith("debezium.transforms.")) {
                out.put(name.substring("debezium.".length()), value);
            }
        }
        return out;
    }

    private static Properties engineProperties() throws IOException {
        Properties file = serverConfig();
        Map<String, String> variables = Map.of(
                "TXINBOX_DB_HOST", HOST, "TXINBOX_DB_PORT", PORT, "TXINBOX_DB_NAME", DATABASE,
                "DEBEZIUM_DB_USER", ADMIN, "DEBEZIUM_DB_PASSWORD", ADMIN_PASSWORD == null ? "" : ADMIN_PASSWORD);
        Properties props = new Properties();
        connectorSettings(file, variables).forEach(props::setProperty);
        for (String part : List.of("key", "value", "header")) {
            String prefix = "debezium.format." + part + ".";
            for (String name : file.stringPropertyNames()) {
                if (name.startsWith(prefix)) {
                    props.setProperty(part + ".converter." + name.substring(prefix.length()), file.getProperty(name));
                }
            }
        }
        // This test's own: a slot of its own, dropped when the engine stops; offsets in memory, not in a file.
        props.setProperty("name", "txinbox-outbox-test");
        props.setProperty("slot.name", SLOT);
        props.setProperty("slot.drop.on.stop", "true");
        props.remove("offset.storage.file.filename");
        props.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
        props.setProperty("offset.flush.interval.ms", "0");
        props.setProperty("database.dbname", DATABASE);
        for (String name : props.stringPropertyNames()) {
            if (props.getProperty(name).contains("${")) {
                fail("unresolved variable in " + SERVER_CONFIG + ": " + name + "=" + props.getProperty(name));
            }
        }
        return props;
    }

    private static String resolve(String value, Map<String, String> variables) {
        Matcher m = Pattern.compile("\\$\\{([A-Z0-9_]+)}").matcher(value);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(sb, Matcher.quoteReplacement(variables.getOrDefault(m.group(1), m.group())));
        }
        m.appendTail(sb);
        return sb.toString();
    }

    @SuppressWarnings("unchecked")
    private static Class<? extends SerializationFormat<String>> format(String name) {
        return switch (name) {
            case "simplestring" -> SimpleString.class;
            case "json" -> Json.class;
            default -> throw new AssertionError("format " + name + " in " + SERVER_CONFIG + " is not one this test reads");
        };
    }

    private static JsonNode readJson(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + text, e);
        }
    }

    private static String env(String name, String otherwise) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? otherwise : value;
    }

    // ---------------------------------------------------------------------------------------------------------
    // the embedded engine

    /** Debezium's embedded engine on a thread of its own, handing its records to a queue. */
    private static final class RunningEngine implements AutoCloseable {

        private final LinkedBlockingQueue<ChangeEvent<String, String>> records = new LinkedBlockingQueue<>();
        private final CompletableFuture<String> completion = new CompletableFuture<>();
        private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> new Thread(r, "debezium-engine"));
        private DebeziumEngine<ChangeEvent<String, String>> engine;

        /** Starts the engine with the formats of Debezium Server's debezium.format.{key,value,header}. */
        static RunningEngine start(Properties props) throws IOException {
            Properties file = serverConfig();
            RunningEngine running = new RunningEngine();
            running.engine = DebeziumEngine
                    .create(KeyValueHeaderChangeEventFormat.of(format(file.getProperty("debezium.format.key")),
                            format(file.getProperty("debezium.format.value")),
                            format(file.getProperty("debezium.format.header"))))
                    .using(props)
                    .using((DebeziumEngine.CompletionCallback) (success, message, error) -> {
                        if (error != null) {
                            running.completion.completeExceptionally(error);
                        } else {
                            running.completion.complete((success ? "stopped: " : "failed: ") + message);
                        }
                    })
                    .notifying(running.records::add)
                    .build();
            running.thread.execute(running.engine);
            return running;
        }

        /** The next {@code count} records, within {@link #WAIT}; fails early with the engine's error if it stops. */
        List<Routed> await(int count, String what) throws InterruptedException {
            List<Routed> out = new ArrayList<>();
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (out.size() < count) {
                ChangeEvent<String, String> record = records.poll(200, TimeUnit.MILLISECONDS);
                if (record != null) {
                    out.add(routed(record));
                    continue;
                }
                if (completion.isDone()) {
                    fail("the engine stopped before " + what + " (" + out.size() + " of " + count + " records): "
                            + completion.handle((m, e) -> e == null ? m : e.toString()).join(),
                            completion.isCompletedExceptionally() ? completion.handle((m, e) -> e).join() : null);
                }
                if (System.nanoTime() > deadline) {
                    fail("only " + out.size() + " of " + count + " records for " + what + " within " + WAIT + ": "
                            + out.stream().map(Routed::describe).toList());
                }
            }
            return out;
        }

        List<Routed> drain(Duration quiet) throws InterruptedException {
            List<Routed> out = new ArrayList<>();
            ChangeEvent<String, String> record;
            while ((record = records.poll(quiet.toMillis(), TimeUnit.MILLISECONDS)) != null) {
                out.add(routed(record));
            }
            return out;
        }

        private static Routed routed(ChangeEvent<String, String> record) {
            Map<String, JsonNode> headers = new LinkedHashMap<>();
            for (Header<String> h : record.<String> headers()) {
                headers.put(h.getKey(), readJson(h.getValue()));
            }
            return new Routed(record.destination(), record.key(), record.value() == null ? null : readJson(record.value()),
                    headers);
        }

        @Override
        public void close() throws Exception {
            engine.close();
            thread.shutdown();
            if (!thread.awaitTermination(60, TimeUnit.SECONDS)) {
                thread.shutdownNow();
                fail("the engine did not stop within 60 s");
            }
        }
    }
}
