package dev.txinbox.outbox;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.inbox.PendingWrites;
import dev.txinbox.inbox.TraceParent;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;

/**
 * Records downstream events in the caller's transaction (CONTRACT §6): a handler calls {@link #record} inside
 * {@code apply}, and the event commits or rolls back with its change. Events are held per transaction and written
 * at the inbox's flush ({@link PendingWrites}), two statements for all of them: one upsert hands out the
 * sequences of every aggregate of the flush, one insert writes the rows. A commit that no inbox drives is flushed
 * by a JTA synchronization; a commit rings the relay.
 *
 * <p>The sequence comes from {@code outbox_sequences}: the upsert locks the aggregates' counter rows until the
 * transaction ends, so a second transaction of the same aggregate gets its numbers only after the first committed
 * (or rolled back, taking its numbers with it): per aggregate, sequence order is commit order, with no gap.
 */
@ApplicationScoped
public class Outbox implements PendingWrites {

    /** As long as the inbox accepts (EventParser.MAX_AGGREGATE_ID_LENGTH): a handler records for any aggregate it applies. */
    public static final int MAX_AGGREGATE_ID_LENGTH = 512;

    /** The line of {@code tracingspancontext} that carries the W3C context (Debezium reads it as a property). */
    private static final String TRACEPARENT_PROPERTY = "traceparent=";

    /** The transaction's resource holding its events not yet written. */
    private static final String HELD = Outbox.class.getName() + ".held";

    // Sorted by aggregate id, so that two flushes lock their counters in the same order and never deadlock.
    private static final String NEXT_SEQUENCES = """
            insert into outbox_sequences (aggregateid, last_sequence)
            select aggregateid, n from unnest(?::text[], ?::bigint[]) as u(aggregateid, n) order by aggregateid
            on conflict (aggregateid) do update set last_sequence = outbox_sequences.last_sequence + excluded.last_sequence
            returning aggregateid, last_sequence
            """;

    private static final String INSERT = """
            insert into outbox_events (id, aggregatetype, aggregateid, type, timestamp, payload, sequence, partition,
                                       tracingspancontext)
            select id, aggregatetype, aggregateid, type, ts, payload::jsonb, sequence, partition, tracingspancontext
              from unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::timestamptz[], ?::text[], ?::bigint[], ?::int[],
                          ?::text[])
                   as u(id, aggregatetype, aggregateid, type, ts, payload, sequence, partition, tracingspancontext)
            """;

    /**
     * The same insert, and a notification to the relays of other pods naming the partitions written, delivered with
     * the commit (and only if it commits): no extra round trip (see {@link OutboxSignal}).
     */
    private static final String INSERT_AND_NOTIFY = "with written as (" + INSERT + " returning partition)"
            + " select pg_notify('" + OutboxSignal.CHANNEL + "', string_agg(distinct partition::text, ','))"
            + " from written";

    /** One event as recorded, before it has a sequence; {@code spanContext}: the recording trace's, or null. */
    private record Event(UUID id, String aggregateType, String aggregateId, String type, Instant at, String payload,
            String spanContext) {
    }

    /** What one transaction holds: events to write, and whether it wrote any (then its commit rings the relay). */
    private final class Held implements Synchronization {

        final List<Event> events = new ArrayList<>();
        boolean written;

        @Override
        public void beforeCompletion() {
            flush(this);
        }

        @Override
        public void afterCompletion(int status) {
            if (status == Status.STATUS_COMMITTED && written) {
                signal.wake();
            }
        }
    }

    private final TransactionSynchronizationRegistry transaction;
    private final DataSource dataSource;
    private final ObjectMapper mapper;
    private final OutboxSignal signal;
    private final int partitions;
    /** Whether relays run (in this pod, and so, configured alike, in the others); without, nobody listens. */
    private final boolean relays;

    public Outbox(TransactionSynchronizationRegistry transaction, DataSource dataSource, ObjectMapper mapper,
            OutboxSignal signal, TxinboxConfig config) {
        this.transaction = transaction;
        this.dataSource = dataSource;
        this.mapper = mapper;
        this.signal = signal;
        this.partitions = config.outbox().partitions();
        this.relays = config.outbox().relay().enabled();
    }

    /**
     * Records an event in the current transaction (Debezium's {@code ExportedEvent}: aggregate type and id, event
     * type, payload) and returns its id, which becomes the published message's {@code eventId}.
     *
     * @param payload a JSON object as text
     * @throws IllegalArgumentException when the payload is not a JSON object, or an id is blank or too long
     * @throws IllegalStateException outside a transaction
     */
    public UUID record(String aggregateType, String aggregateId, String type, String payload) {
        JsonNode node;
        try {
            node = payload == null ? null : mapper.readTree(payload);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the payload of a " + type + " event is not JSON: "
                    + e.getOriginalMessage());
        }
        return record(aggregateType, aggregateId, type, node);
    }

    /** As {@link #record(String, String, String, String)}, with the payload as a Jackson node. */
    public UUID record(String aggregateType, String aggregateId, String type, JsonNode payload) {
        text("aggregateType", aggregateType, 255);
        text("aggregateId", aggregateId, MAX_AGGREGATE_ID_LENGTH);
        text("type", type, 255);
        if (payload == null || !payload.isObject()) {
            throw new IllegalArgumentException("the payload of a " + type + " event must be a JSON object, got "
                    + payload);
        }
        if (transaction.getTransactionKey() == null) {
            throw new IllegalStateException("Outbox.record needs a transaction: call it from a handler's apply");
        }
        Held held = (Held) transaction.getResource(HELD);
        if (held == null) {
            held = new Held();
            transaction.putResource(HELD, held);
            transaction.registerInterposedSynchronization(held);
        }
        Instant at = Instant.now();
        UUID id = EventIds.next(at);
        held.events.add(new Event(id, aggregateType, aggregateId, type, at, payload.toString(),
                spanContext(Span.current().getSpanContext())));
        return id;
    }

    /**
     * The recording trace's context as Debezium's outbox event router stores it ({@code tracingspancontext}: a
     * properties text), so that either publisher continues the trace; null outside a trace.
     */
    static String spanContext(SpanContext context) {
        if (!context.isValid()) {
            return null;
        }
        return TRACEPARENT_PROPERTY + TraceParent.of(context.getTraceId(), context.getSpanId(),
                context.getTraceFlags().asHex());
    }

    /** The W3C traceparent stored by {@link #spanContext}, or null when none was. */
    public static String traceparentOf(String spanContext) {
        if (spanContext == null) {
            return null;
        }
        for (String line : spanContext.split("\\R")) {
            if (line.startsWith(TRACEPARENT_PROPERTY)) {
                return line.substring(TRACEPARENT_PROPERTY.length()).trim();
            }
        }
        return null;
    }

    /** The partition of an aggregate: stable across processes and releases (String.hashCode is specified). */
    public static int partitionOf(String aggregateId, int partitions) {
        return Math.floorMod(aggregateId.hashCode(), partitions);
    }

    @Override
    public void flush() {
        if (transaction.getTransactionKey() == null) {
            return;
        }
        Held held = (Held) transaction.getResource(HELD);
        if (held != null) {
            flush(held);
        }
    }

    private void flush(Held held) {
        if (held.events.isEmpty()) {
            return;
        }
        List<Event> events = List.copyOf(held.events);
        // Inside the transaction the pool hands out the connection the transaction already uses.
        try (Connection connection = dataSource.getConnection()) {
            Map<String, Long> next = nextSequences(connection, events);
            int n = events.size();
            Object[] ids = new Object[n];
            String[] types = new String[n];
            String[] aggregateIds = new String[n];
            String[] eventTypes = new String[n];
            String[] timestamps = new String[n];
            String[] payloads = new String[n];
            Long[] sequences = new Long[n];
            Integer[] partitionsOf = new Integer[n];
            String[] spanContexts = new String[n];
            for (int i = 0; i < n; i++) {
                Event event = events.get(i);
                ids[i] = event.id();
                types[i] = event.aggregateType();
                aggregateIds[i] = event.aggregateId();
                eventTypes[i] = event.type();
                timestamps[i] = event.at().toString();
                payloads[i] = event.payload();
                long sequence = next.get(event.aggregateId());
                sequences[i] = sequence;
                next.put(event.aggregateId(), sequence + 1);
                partitionsOf[i] = partitionOf(event.aggregateId(), partitions);
                spanContexts[i] = event.spanContext();
            }
            boolean notify = relays && signal.othersMayOwn(Arrays.asList(partitionsOf));
            try (PreparedStatement insert = connection.prepareStatement(notify ? INSERT_AND_NOTIFY : INSERT)) {
                insert.setArray(1, connection.createArrayOf("uuid", ids));
                insert.setArray(2, connection.createArrayOf("text", types));
                insert.setArray(3, connection.createArrayOf("text", aggregateIds));
                insert.setArray(4, connection.createArrayOf("text", eventTypes));
                insert.setArray(5, connection.createArrayOf("text", timestamps));
                insert.setArray(6, connection.createArrayOf("text", payloads));
                insert.setArray(7, connection.createArrayOf("bigint", sequences));
                insert.setArray(8, connection.createArrayOf("integer", partitionsOf));
                insert.setArray(9, connection.createArrayOf("text", spanContexts));
                if (notify) {
                    insert.executeQuery().close();
                } else {
                    insert.executeUpdate();
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("writing " + events.size() + " outbox events failed: " + e.getMessage(), e);
        }
        held.events.subList(0, events.size()).clear();
        held.written = true;
    }

    /** The first sequence of each aggregate's events in this flush, from one upsert. */
    private static Map<String, Long> nextSequences(Connection connection, List<Event> events) throws SQLException {
        Map<String, Long> counts = new TreeMap<>();
        events.forEach(e -> counts.merge(e.aggregateId(), 1L, Long::sum));
        Map<String, Long> first = new HashMap<>();
        try (PreparedStatement upsert = connection.prepareStatement(NEXT_SEQUENCES)) {
            Array aggregates = connection.createArrayOf("text", counts.keySet().toArray());
            upsert.setArray(1, aggregates);
            upsert.setArray(2, connection.createArrayOf("bigint", counts.values().toArray()));
            try (ResultSet rs = upsert.executeQuery()) {
                while (rs.next()) {
                    String aggregate = rs.getString(1);
                    first.put(aggregate, rs.getLong(2) - counts.get(aggregate) + 1);
                }
            }
        }
        if (first.size() != counts.size()) {
            throw new IllegalStateException("the sequence counter answered for " + first.size() + " of " + counts.size()
                    + " aggregates");
        }
        return first;
    }

    private static void text(String name, String value, int max) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " of an outbox event is required");
        }
        if (value.length() > max) {
            throw new IllegalArgumentException(name + " of an outbox event is longer than " + max + " characters");
        }
    }
}
