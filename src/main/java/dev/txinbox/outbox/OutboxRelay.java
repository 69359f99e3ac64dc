package dev.txinbox.outbox;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.inbox.LogContext;
import dev.txinbox.inbox.TraceParent;
import dev.txinbox.outbox.OutboxPublisher.Failure;
import dev.txinbox.outbox.OutboxPublisher.Message;
import dev.txinbox.outbox.OutboxPublisher.PublishException;
import dev.txinbox.outbox.OutboxPublisher.Refusal;

/**
 * Publishes {@code outbox_events} to the FIFO queue, per aggregate in sequence order (docs/OUTBOX.md).
 *
 * <p>The table's rows are spread over a fixed number of partitions by a hash of the aggregate id. An instance owns
 * a partition while it holds the session advisory lock {@code (PARTITION_KEY, partition)} on a connection of its own,
 * so the partitions of a crashed pod pass to the others with its session, and no two instances ever send the same
 * aggregate. Every instance also holds a membership lock; each takes no more than its fair share of the partitions
 * (partitions / members, rounded up) and gives back its surplus, between two sends, when another instance joins.
 *
 * <p>Each round it reads a page of the heads of the owned partitions' pending streams (the lowest unpublished sequence
 * of each aggregate, if due), walking the partitions in aggregate id order page by page, and sends them in
 * {@code SendMessageBatch} calls, several in flight: an aggregate appears at most once per round, so no call carries
 * an event after one of the same aggregate that may fail, in the same call or in another. Published rows are marked
 * (or, with a retention of 0, deleted), one statement per page. Failures
 * are handled by their class: an unavailable broker backs off and counts no attempt; a configuration fault (missing
 * queue, access denied) backs off and is reported to readiness; an event the broker refuses counts an attempt and
 * waits with a growing delay, and only its aggregate waits with it.
 */
public final class OutboxRelay {

    private static final Logger LOG = Logger.getLogger(OutboxRelay.class);

    /** Advisory lock class of the partitions: "txob". */
    static final int PARTITION_KEY = 0x74786f62;
    /** Advisory lock class of the relay instances, one lock per session: "txom". */
    static final int MEMBER_KEY = 0x74786f6d;
    /** Heads read per partition per round; a full page means the partition has more to send at once. */
    static final int HEADS_PER_ROUND = 200;
    static final int MAX_BATCH = 10;
    /**
     * {@code SendMessageBatch} calls a relay keeps in flight: one at a time, a relay publishes no faster than ten
     * events per broker round trip. Kept well below the SQS client's connection pool (50), which the inbox's
     * receives and deletes share.
     */
    static final int SENDS_IN_FLIGHT = 8;
    private static final Duration MAX_OUTAGE_BACKOFF = Duration.ofSeconds(30);
    /** What SQS takes as a MessageGroupId. */
    private static final java.util.regex.Pattern GROUP_ID = java.util.regex.Pattern.compile("[\\x21-\\x7e]{1,128}");

    private static final String HEADS = """
            select id, aggregatetype, aggregateid, type, timestamp, payload::text, sequence, attempts, partition,
                   tracingspancontext from (
                select distinct on (partition, aggregateid) id, aggregatetype, aggregateid, type, timestamp, payload,
                       sequence, attempts, next_attempt_at, partition, tracingspancontext
                  from outbox_events
                 where partition = any (?) and (partition, aggregateid) > (?, ?)
                   and published_at is null and skipped_at is null
                 order by partition, aggregateid, sequence) heads
             where next_attempt_at is null or next_attempt_at <= now()
             limit ?
            """;

    /** Opens the relay's own connection (not the pool's: its session holds the partition locks). */
    @FunctionalInterface
    public interface Connector {
        Connection open() throws SQLException;
    }

    /** What the relay is doing, for readiness and the operators. */
    public record State(Publishing publishing, String error, Instant since, Set<Integer> owned) {
    }

    public enum Publishing {
        STARTING, OK, UNAVAILABLE, CREDENTIALS, CONFIGURATION, DATABASE_UNAVAILABLE, STOPPED
    }

    /** {@code spanContext}: the recording transaction's trace context ({@code tracingspancontext}), or null. */
    private record Head(UUID id, String aggregateType, String aggregateId, String type, Instant timestamp,
            String payload, long sequence, int attempts, int partition, String spanContext) {
    }

    private final String name;
    private final Connector connector;
    private final OutboxPublisher publisher;
    private final TxinboxConfig.Outbox config;
    private final OutboxSignal signal;
    private final OutboxMetrics metrics;
    private final ObjectMapper mapper;
    private final Wakeup wakeup = new Wakeup();

    private final TreeSet<Integer> owned = new TreeSet<>();
    /** Where the page sent last ended: its last (partition, aggregate id); (-1, "") starts from the first. */
    private int afterPartition = -1;
    private String afterAggregate = "";
    private Connection connection;
    private boolean member;
    private volatile boolean running;
    private Thread thread;
    private Instant nextClaim = Instant.EPOCH;
    private Instant backoffUntil = Instant.EPOCH;
    private int outageFailures;
    private int sendsThisRound;
    private volatile State state = new State(Publishing.STARTING, null, Instant.now(), Set.of());

    public OutboxRelay(String name, Connector connector, OutboxPublisher publisher, TxinboxConfig.Outbox config,
            OutboxSignal signal, OutboxMetrics metrics, ObjectMapper mapper) {
        this.name = name;
        this.connector = connector;
        this.publisher = publisher;
        this.config = config;
        this.signal = signal;
        this.metrics = metrics;
        this.mapper = mapper;
    }

    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        signal.register(wakeup, () -> state.owned());
        thread = new Thread(this::loop, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Stops after the call in flight, then closes the connection, which hands the partitions to the others. */
    public void stop(Duration timeout) {
        Thread running;
        synchronized (this) {
            this.running = false;
            running = thread;
            thread = null;
        }
        signal.unregister(wakeup);
        wakeup.ring();
        if (running != null) {
            try {
                running.join(timeout.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (running.isAlive()) {
                running.interrupt();
            }
        }
    }

    public State state() {
        return state;
    }

    /** Looks at once (an operator's retry, a test). */
    public void wake() {
        wakeup.ring();
    }

    private void loop() {
        try {
            while (running) {
                Duration idle;
                try {
                    idle = round();
                } catch (SQLException e) {
                    lostDatabase(e);
                    idle = outageBackoff();
                } catch (RuntimeException e) {
                    LOG.errorf(e, "outbox relay %s: a round failed; trying again", name);
                    idle = config.relay().pollInterval();
                }
                if (!idle.isZero() && running) {
                    wakeup.await(idle);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeConnection();
            state = new State(Publishing.STOPPED, null, Instant.now(), Set.of());
        }
    }

    /** One round; returns how long to wait before the next one (zero: at once, there is more). */
    private Duration round() throws SQLException {
        if (connection == null) {
            connection = connector.open();
            connection.setAutoCommit(true);
            nextClaim = Instant.EPOCH;
            if (state.publishing() == Publishing.DATABASE_UNAVAILABLE || state.publishing() == Publishing.STARTING
                    || state.publishing() == Publishing.STOPPED) {
                state(Publishing.OK, null);
            }
        }
        Instant now = Instant.now();
        if (!now.isBefore(nextClaim)) {
            claim();
            nextClaim = now.plus(config.relay().claimInterval());
        }
        Duration untilClaim = Duration.between(Instant.now(), nextClaim);
        if (now.isBefore(backoffUntil)) {
            return min(Duration.between(now, backoffUntil), untilClaim);
        }
        boolean more = false;
        sendsThisRound = 0;
        try {
            if (!owned.isEmpty()) {
                more = publish();
            }
            if (sendsThisRound == 0 && state.publishing() != Publishing.OK && !owned.isEmpty()) {
                // Nothing to send, so no send can tell that the broker or the queue is back: ask.
                publisher.probe(config.queue());
                answered();
            }
        } catch (PublishException e) {
            return brokerFailed(e);
        }
        return more ? Duration.ZERO : min(config.relay().pollInterval(), untilClaim);
    }

    /** Takes free partitions up to this instance's fair share and gives back what exceeds it. */
    private void claim() throws SQLException {
        int partitions = config.partitions();
        if (!member) {
            // Keyed by the session's pid, so every instance holds one: pg_locks then counts the instances.
            try (Statement s = connection.createStatement()) {
                s.executeQuery("select pg_advisory_lock(" + MEMBER_KEY + ", pg_backend_pid())").close();
            }
            member = true;
        }
        int members;
        try (PreparedStatement ps = connection.prepareStatement("""
                select count(distinct pid) from pg_locks
                 where locktype = 'advisory' and classid = ?::int::oid and objsubid = 2 and granted
                   and database = (select oid from pg_database where datname = current_database())""")) {
            ps.setInt(1, MEMBER_KEY);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                members = Math.max(1, rs.getInt(1));
            }
        }
        int share = (partitions + members - 1) / members;
        while (owned.size() > share) {
            int surplus = owned.last();
            // Said before let go: a commit here that still counts on this relay would not tell the next owner.
            owned.remove(surplus);
            ownedChanged();
            lock("pg_advisory_unlock", surplus);
            LOG.infof("outbox relay %s: gave partition %d back (%d relays share %d partitions)", name, surplus, members,
                    partitions);
        }
        for (int partition = 0; partition < partitions && owned.size() < share; partition++) {
            if (!owned.contains(partition) && lock("pg_try_advisory_lock", partition)) {
                owned.add(partition);
                LOG.debugf("outbox relay %s: owns partition %d", name, partition);
            }
        }
        ownedChanged();
    }

    private void ownedChanged() {
        state = new State(state.publishing(), state.error(), state.since(), Set.copyOf(owned));
    }

    private boolean lock(String function, int partition) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("select " + function + "(?, ?)")) {
            ps.setInt(1, PARTITION_KEY);
            ps.setInt(2, partition);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /**
     * Sends a page of the due heads of the owned partitions; true when there may be more to send at once (something
     * was published, whose successor may now be due, or the page was full, or the walk wrapped around).
     */
    private boolean publish() throws SQLException {
        boolean fromStart = afterPartition < 0;
        List<Head> heads = heads();
        // A short page is the end of the walk: the next round starts again from the first aggregate.
        boolean wrapped = heads.size() < HEADS_PER_ROUND;
        Head last = wrapped ? null : heads.get(heads.size() - 1);
        afterPartition = wrapped ? -1 : last.partition();
        afterAggregate = wrapped ? "" : last.aggregateId();
        if (heads.isEmpty()) {
            return !fromStart;
        }
        List<Call> calls = new ArrayList<>();
        List<Head> batch = new ArrayList<>();
        List<String> bodies = new ArrayList<>();
        int bytes = 0;
        for (Head head : heads) {
            String body = body(head);
            int size = body.getBytes(StandardCharsets.UTF_8).length;
            if (size > config.relay().maxMessageBytes()) {
                refused(head, "message of " + size + " bytes exceeds the limit of " + config.relay().maxMessageBytes()
                        + " bytes");
                continue;
            }
            if (!batch.isEmpty() && (batch.size() == MAX_BATCH || bytes + size > config.relay().maxMessageBytes())) {
                calls.add(new Call(List.copyOf(batch), List.copyOf(bodies)));
                batch.clear();
                bodies.clear();
                bytes = 0;
            }
            batch.add(head);
            bodies.add(body);
            bytes += size;
        }
        if (!batch.isEmpty()) {
            calls.add(new Call(List.copyOf(batch), List.copyOf(bodies)));
        }
        return send(calls) || !wrapped || !fromStart;
    }

    /**
     * The due heads of the owned partitions' pending streams, in (partition, aggregate id) order after where the
     * last page ended: the pending index yields them in that order, so one statement reads a page across all owned
     * partitions, and a page costs the rows of its own aggregates, however long the backlog behind it. Walking
     * page by page serves every aggregate once per pass.
     */
    private List<Head> heads() throws SQLException {
        List<Head> heads = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(HEADS)) {
            ps.setArray(1, connection.createArrayOf("integer", owned.toArray()));
            ps.setInt(2, afterPartition);
            ps.setString(3, afterAggregate);
            ps.setInt(4, HEADS_PER_ROUND);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    heads.add(new Head(rs.getObject(1, UUID.class), rs.getString(2), rs.getString(3), rs.getString(4),
                            rs.getTimestamp(5).toInstant(), rs.getString(6), rs.getLong(7), rs.getInt(8),
                            rs.getInt(9), rs.getString(10)));
                }
            }
        }
        return heads;
    }

    /**
     * CONTRACT §1's body, so that a txinbox consumer downstream consumes it as it is. The payload goes in as
     * PostgreSQL wrote it: jsonb's text is JSON already, so it is not parsed and written again.
     */
    private String body(Head head) {
        ObjectNode body = mapper.createObjectNode();
        body.put("eventId", head.id().toString());
        body.put("type", head.type());
        body.put("aggregateId", head.aggregateId());
        body.put("sequence", head.sequence());
        body.put("occurredAt", head.timestamp().toString());
        body.putRawValue("payload", new RawValue(head.payload()));
        try {
            return mapper.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("outbox event " + head.id() + " could not be written", e);
        }
    }

    /**
     * The message group of an aggregate: its id, unless SQS would refuse that as a group id (more than 128
     * characters, or characters other than printable ASCII); then a hash of it, which keeps the aggregate's events
     * in one group, in order. The body's {@code aggregateId} is always the id itself.
     */
    static String groupId(String aggregateId) {
        if (GROUP_ID.matcher(aggregateId).matches()) {
            return aggregateId;
        }
        try {
            byte[] hash = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(aggregateId.getBytes(StandardCharsets.UTF_8));
            return "sha256-" + java.util.HexFormat.of().formatHex(hash);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One {@code SendMessageBatch}: heads of distinct aggregates, with their bodies. */
    private record Call(List<Head> heads, List<String> bodies) {
    }

    /** A call sent, and its answer to come. */
    private record InFlight(Call call, CompletableFuture<List<Refusal>> answer) {
    }

    /**
     * Sends the calls, {@link #SENDS_IN_FLIGHT} at a time, and marks what the broker took in one statement. The
     * calls carry heads of distinct aggregates (at most one event per aggregate per round), so none of them can
     * overtake another's predecessor, whichever is answered first. When the broker fails a call as a whole, the
     * others' answers are still taken and marked before the failure is handled.
     *
     * @return true when something was published
     */
    private boolean send(List<Call> calls) throws SQLException {
        List<Head> sent = new ArrayList<>();
        Map<Call, String> refusedRequests = new java.util.LinkedHashMap<>();
        PublishException outage = null;
        ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
        int next = 0;
        while (next < calls.size() || !inFlight.isEmpty()) {
            while (next < calls.size() && inFlight.size() < SENDS_IN_FLIGHT && outage == null) {
                Call call = calls.get(next++);
                sendsThisRound++;
                try {
                    inFlight.add(new InFlight(call, publisher.send(config.queue(), messages(call))));
                } catch (PublishException e) {
                    outage = e;
                }
            }
            if (outage != null && next < calls.size()) {
                next = calls.size(); // what was not sent yet waits for the broker to come back
            }
            InFlight oldest = inFlight.poll();
            if (oldest == null) {
                break;
            }
            try {
                settle(oldest.call(), await(oldest.answer()), sent);
            } catch (PublishException e) {
                if (e.failure() == Failure.REQUEST_REFUSED) {
                    refusedRequests.put(oldest.call(), e.getMessage());
                } else if (outage == null) {
                    outage = e;
                }
            }
        }
        published(sent);
        if (outage != null) {
            throw outage;
        }
        if (!sent.isEmpty() || !calls.isEmpty()) {
            answered();
        }
        boolean published = !sent.isEmpty();
        for (Map.Entry<Call, String> refusedRequest : refusedRequests.entrySet()) {
            published |= sendAlone(refusedRequest.getKey(), refusedRequest.getValue());
        }
        return published;
    }

    /**
     * The broker refused a call as a whole (too long, invalid) and its answer does not say which entry is at
     * fault: each alone finds it.
     */
    private boolean sendAlone(Call call, String reason) throws SQLException {
        if (call.heads().size() == 1) {
            refused(call.heads().get(0), reason);
            return false;
        }
        List<Call> alone = new ArrayList<>();
        for (int i = 0; i < call.heads().size(); i++) {
            alone.add(new Call(List.of(call.heads().get(i)), List.of(call.bodies().get(i))));
        }
        List<Head> sent = new ArrayList<>();
        for (Call one : alone) {
            sendsThisRound++;
            try {
                settle(one, await(publisher.send(config.queue(), messages(one))), sent);
            } catch (PublishException e) {
                if (e.failure() != Failure.REQUEST_REFUSED) {
                    published(sent);
                    throw e;
                }
                refused(one.heads().get(0), e.getMessage());
            }
        }
        published(sent);
        return !sent.isEmpty();
    }

    private List<Message> messages(Call call) {
        List<Message> messages = new ArrayList<>(call.heads().size());
        for (int i = 0; i < call.heads().size(); i++) {
            Head head = call.heads().get(i);
            messages.add(new Message(Integer.toString(i), groupId(head.aggregateId()), head.id().toString(),
                    call.bodies().get(i), attributes(head)));
        }
        return messages;
    }

    /** The message attributes: the event's identity, and the recording trace's context when it had one. */
    private static Map<String, String> attributes(Head head) {
        String traceparent = Outbox.traceparentOf(head.spanContext());
        return traceparent == null
                ? Map.of("event-id", head.id().toString(), "aggregate-type", head.aggregateType(), "event-type",
                        head.type())
                : Map.of("event-id", head.id().toString(), "aggregate-type", head.aggregateType(), "event-type",
                        head.type(), "traceparent", traceparent);
    }

    /** Sorts a call's answer: taken (into {@code sent}), refused for the event's fault, or not taken for now. */
    private void settle(Call call, List<Refusal> refusals, List<Head> sent) throws SQLException {
        Map<String, Refusal> refused = new HashMap<>();
        refusals.forEach(r -> refused.put(r.entryId(), r));
        int taken = 0;
        for (int i = 0; i < call.heads().size(); i++) {
            Head head = call.heads().get(i);
            Refusal refusal = refused.get(Integer.toString(i));
            if (refusal == null) {
                sent.add(head);
                taken++;
            } else if (refusal.senderFault()) {
                refused(head, refusal.reason());
            } else {
                // The broker's fault, not the event's: no attempt counted, the next round sends it again.
                metrics.failure(OutboxMetrics.UNAVAILABLE, 1);
                LOG.debugf("outbox relay %s: event %s not taken for now: %s", name, head.id(), refusal.reason());
            }
        }
        if (taken > 0) {
            metrics.batchSize().record(taken);
        }
    }

    private void published(List<Head> sent) throws SQLException {
        if (sent.isEmpty()) {
            return;
        }
        markPublished(sent.stream().map(Head::id).toList());
        metrics.published(sent.size());
        Instant now = Instant.now();
        sent.forEach(h -> metrics.commitToSend().record(Duration.between(h.timestamp(), now)));
    }

    private List<Refusal> await(CompletableFuture<List<Refusal>> answer) {
        try {
            return answer.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishException(Failure.UNAVAILABLE, "interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof PublishException publish) {
                throw publish;
            }
            Throwable cause = e.getCause() instanceof CompletionException c && c.getCause() != null ? c.getCause()
                    : e.getCause();
            if (cause instanceof PublishException publish) {
                throw publish;
            }
            throw new PublishException(Failure.UNAVAILABLE, String.valueOf(cause), cause);
        }
    }

    /** The broker took a call: an outage or a configuration fault is over. */
    private void answered() {
        if (state.publishing() != Publishing.OK) {
            LOG.infof("outbox relay %s: the queue takes messages again", name);
            state(Publishing.OK, null);
        }
        outageFailures = 0;
    }

    private void markPublished(List<UUID> ids) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(config.retention().isZero()
                ? "delete from outbox_events where id = any (?)"
                : "update outbox_events set published_at = now(), next_attempt_at = null where id = any (?)")) {
            ps.setArray(1, connection.createArrayOf("uuid", ids.toArray()));
            ps.executeUpdate();
        }
    }

    /** The event itself is at fault: an attempt counted, and its aggregate waits a growing delay. */
    private void refused(Head head, String reason) throws SQLException {
        int attempts = head.attempts() + 1;
        Duration delay = retryDelay(attempts);
        try (PreparedStatement ps = connection.prepareStatement("update outbox_events set attempts = ?,"
                + " last_error = ?, next_attempt_at = ? where id = ? and published_at is null")) {
            ps.setInt(1, attempts);
            ps.setString(2, reason);
            ps.setTimestamp(3, Timestamp.from(Instant.now().plus(delay)));
            ps.setObject(4, head.id());
            ps.executeUpdate();
        }
        metrics.failure(OutboxMetrics.REJECTED, 1);
        try (LogContext ignored = LogContext.of(null, head.id().toString(), null,
                TraceParent.traceId(Outbox.traceparentOf(head.spanContext())))) {
            LOG.warnf("outbox relay %s: event %s (%s %s, sequence %d) refused, attempt %d; aggregate %s waits %d ms:"
                    + " %s", name, head.id(), head.aggregateType(), head.type(), head.sequence(), attempts,
                    head.aggregateId(), delay.toMillis(), reason);
        }
    }

    Duration retryDelay(int attempts) {
        Duration delay = config.relay().retryBase().multipliedBy(1L << Math.min(attempts - 1, 20));
        return delay.compareTo(config.relay().retryCap()) > 0 ? config.relay().retryCap() : delay;
    }

    private Duration brokerFailed(PublishException e) {
        boolean configuration = e.failure() == Failure.CONFIGURATION;
        metrics.failure(configuration ? OutboxMetrics.CONFIGURATION : OutboxMetrics.UNAVAILABLE, 1);
        Publishing publishing = switch (e.failure()) {
            case CONFIGURATION -> Publishing.CONFIGURATION;
            case CREDENTIALS -> Publishing.CREDENTIALS;
            default -> Publishing.UNAVAILABLE;
        };
        if (state.publishing() != publishing) {
            LOG.warnf("outbox relay %s: %s; backing off, no event counts an attempt: %s", name, switch (publishing) {
                case CONFIGURATION -> "the queue cannot be used";
                case CREDENTIALS -> "no usable AWS credentials";
                default -> "the broker is unavailable";
            }, e.getMessage());
        }
        state(publishing, e.getMessage());
        Duration backoff = outageBackoff();
        backoffUntil = Instant.now().plus(backoff);
        return backoff;
    }

    private Duration outageBackoff() {
        outageFailures++;
        Duration backoff = Duration.ofMillis(Math.min(250L << Math.min(outageFailures - 1, 10),
                MAX_OUTAGE_BACKOFF.toMillis()));
        return backoff.compareTo(config.relay().retryCap()) > 0 ? config.relay().retryCap() : backoff;
    }

    private void lostDatabase(SQLException e) {
        if (state.publishing() != Publishing.DATABASE_UNAVAILABLE) {
            LOG.warnf("outbox relay %s: database connection lost, partitions %s released: %s", name, owned,
                    e.getMessage());
        }
        closeConnection();
        state(Publishing.DATABASE_UNAVAILABLE, e.getMessage());
    }

    private void closeConnection() {
        owned.clear();
        ownedChanged();
        member = false;
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                LOG.debugf("closing the relay's connection: %s", e.getMessage());
            }
            connection = null;
        }
    }

    private void state(Publishing publishing, String error) {
        Instant since = state.publishing() == publishing ? state.since() : Instant.now();
        state = new State(publishing, error, since, Set.copyOf(owned));
    }

    private static Duration min(Duration a, Duration b) {
        Duration m = a.compareTo(b) < 0 ? a : b;
        return m.isNegative() ? Duration.ZERO : m;
    }
}
