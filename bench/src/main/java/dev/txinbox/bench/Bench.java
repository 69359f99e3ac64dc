package dev.txinbox.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
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

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.txinbox.harness.BareSender;
import dev.txinbox.harness.Broker;
import dev.txinbox.harness.Child;
import dev.txinbox.harness.Db;
import dev.txinbox.harness.Downstream;
import dev.txinbox.harness.Options;
import dev.txinbox.harness.Oracle;
import dev.txinbox.harness.OrderStream;
import dev.txinbox.harness.PgStatements;
import dev.txinbox.harness.Proc;
import dev.txinbox.harness.Producer;
import dev.txinbox.harness.Quiescence;
import dev.txinbox.harness.Service;
import dev.txinbox.harness.StageTimes;
import dev.txinbox.harness.ServiceCounters;
import dev.txinbox.harness.Sqs;
import dev.txinbox.harness.StreamSpec;
import dev.txinbox.harness.Verifier;

/**
 * bench/run: measures txinbox against the drain ceiling and the naive consumer, on the same broker,
 * database and stream, in two modes: concurrent (the stream is sent while the consumer runs; then its
 * scaling with parallelism and groups, and its latency at half its peak) and backlog (the whole stream
 * waits in the queue, behind a warm-up of other orders, before the consumer starts; then the same over
 * millions of old inbox rows). Every run is checked against the oracle; a run that loses or doubles data
 * fails the benchmark. bench/ab ({@link Ab}) runs {@link #txinboxBacklog} with two service jars.
 */
public final class Bench implements AutoCloseable {

    /** The runs' database, dropped and made again for each run; {@code BENCH_DATABASE} names another. */
    private static final String DB = System.getenv().getOrDefault("BENCH_DATABASE", "txinbox_bench");
    private static final String NAIVE_DB = DB + "_naive";
    private static final String CAMEL_DB = DB + "_camel";
    /** The Camel baseline's module (bench/camel), built by bench/run beside this one: its classes and classpath. */
    private static final Path CAMEL_CLASSES = Path.of("bench/camel/target/classes");
    private static final Path CAMEL_CLASSPATH = Path.of("bench/camel/target/classpath.txt");
    /** The fresh-pod mode's window opens when this share of the stream's messages is done. */
    static final double FRESH_WINDOW_START = 0.2;
    private static final String WARM_UP = "w";
    /**
     * The JIT compiler threads (C1 and C2 CompilerThreadN): /proc cuts a thread's name to 15 characters, and
     * {@link Proc#threadCpuMillis} puts N for the digits, so both count under this name. A compiler thread
     * the JVM stops in the window takes its CPU out of the sum; on two cores it keeps one of each throughout.
     */
    private static final String JIT_THREADS = "CN CompilerThre";
    /**
     * The relay's own threads, as the service names them (EmbeddedRelay): its loop and the listener that hears other
     * pods' commits. The relay's cost per event measured on them does not depend on how fast the broker is.
     */
    static final List<String> RELAY_THREADS = List.of("outbox-relay", "outbox-listener");
    /**
     * The groups a consumer's CPU is split into, by thread ({@link #cpuGroup}): its workers (the service's
     * {@code txinbox-orders-N}, Camel's consumer threads, the naive consumer's main thread, the drain's pollers), the
     * SDK's event loop (the service's Netty I/O), the outbox relay's threads, the JIT compiler threads, GC and the VM
     * thread (Serial GC collects on it), and the rest (the connector's poller, executors, timers).
     */
    static final List<String> CPU_GROUPS = List.of("workers", "event loop", "relay", "JIT", "GC and VM thread", "other");
    private static final long NO_PROGRESS_MILLIS = 120_000;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A baseline's CPU by thread, as its summary has it. */
    private static final TypeReference<Map<String, Double>> THREADS = new TypeReference<>() {
    };

    private final Options<? extends BenchSuite> options;
    private final BenchSuite suite;
    private final Sqs sqs;
    private final Broker broker;
    private final Path results;
    private final Path logs;
    /** The backlog warm-up stream by group count: the same for every backlog run of a harness run. */
    private final Map<Integer, OrderStream> backlogWarmUps = new HashMap<>();
    private int queueCounter;

    Bench(Options<? extends BenchSuite> options) throws IOException, SQLException {
        this.options = options;
        this.suite = options.suite();
        this.sqs = new Sqs(suite.endpoint, 16);
        this.broker = new Broker(suite.endpoint, suite.brokerPid, Path.of("bench/target/elasticmq.log"));
        this.results = options.out();
        this.logs = options.logs();
        Files.createDirectories(logs);
        PgStatements.requireLoaded();
    }

    public static void main(String[] args) throws Exception {
        Bench bench = new Bench(Options.parseOrExit(new BenchSuite(), args));
        int failures = bench.runAll();
        System.exit(failures == 0 ? 0 : 1);
    }

    int runAll() throws Exception {
        StreamSpec main = suite.spec(options);
        List<RunResult> runs = new ArrayList<>();
        System.out.printf("txinbox benchmark (%s; %s): %s%n", options.size(), String.join(" and ", suite.modes),
                main.describe());
        if (suite.modes.contains(BenchSuite.BACKLOG)) {
            System.out.printf("backlog runs: %d warm-up messages of other orders ahead of the stream, not measured%n",
                    suite.backlogWarmUp);
        }
        OrderStream mainStream = OrderStream.generate(main);
        mainStream.oracle().write(results.resolve("oracle-" + options.size() + ".json"));

        for (String mode : suite.modes) {
            System.out.println(mode + " mode:");
            boolean jfr = suite.jfr && mode.equals(suite.modes.get(0));
            if (mode.equals(BenchSuite.BACKLOG)) {
                runs.addAll(backlog(main, mainStream, jfr));
            } else if (mode.equals(BenchSuite.FRESH)) {
                runs.addAll(fresh(main, jfr));
            } else {
                runs.addAll(concurrent(main, mainStream, jfr));
            }
        }

        new BenchReport(options, main, runs, machine()).write();
        close();
        // The naive and Camel baselines keep no per-order ordering: their wrong orders are counted, not failures.
        return (int) runs.stream().filter(r -> !r.verdict().exactlyOnce() && !r.consumer().equals("naive")
                && !r.consumer().equals("camel") && !r.consumer().equals(BenchSuite.DUAL_WRITE)).count();
    }

    /** The stream sent as fast as the broker takes it while the consumer runs; then latency and the curves. */
    private List<RunResult> concurrent(StreamSpec main, OrderStream mainStream, boolean jfr) throws Exception {
        String mode = BenchSuite.CONCURRENT;
        List<RunResult> runs = new ArrayList<>();
        RunResult txinbox = txinbox("txinbox", mainStream, main.groups(), suite.parallelism, 0, jfr);
        runs.add(txinbox);
        if (suite.runs.contains("drain")) {
            runs.add(drain(mode, "drain ceiling", mainStream, main.groups()));
        }
        if (suite.runs.contains("naive")) {
            runs.add(naive(mode, "naive (article)", mainStream, main.groups()));
        }
        if (suite.runs.contains("camel")) {
            runs.add(camel(mode, "camel", mainStream, main.groups(), false));
        }
        if (suite.runs.contains("latency")) {
            double halfPeak = Math.max(50, Math.floor(txinbox.throughput() / 2 / 50) * 50);
            StreamSpec paced = main.withMessages(
                    Math.max(2_000, (int) Math.min(main.messages(), halfPeak * suite.pacedSeconds)));
            runs.add(txinbox("latency at half peak", OrderStream.generate(paced), main.groups(), suite.parallelism,
                    halfPeak, false));
        }
        if (suite.runs.contains("curves")) {
            StreamSpec curveSpec = main.withMessages(suite.curveMessages);
            OrderStream curveStream = OrderStream.generate(curveSpec);
            for (int p : suite.parallelismCurve) {
                runs.add(txinbox("parallelism " + p, curveStream, curveSpec.groups(), p, 0, false));
            }
            for (int g : suite.groupCurve) {
                StreamSpec spec = curveSpec.withGroups(g);
                runs.add(txinbox("groups " + g, OrderStream.generate(spec), g, suite.parallelism, 0, false));
            }
        }
        return runs;
    }

    /**
     * The whole stream in the queue before the consumer starts; the outbox relay over the events that leaves; then
     * txinbox again over old inbox rows.
     */
    private List<RunResult> backlog(StreamSpec main, OrderStream mainStream, boolean jfr) throws Exception {
        String mode = BenchSuite.BACKLOG;
        List<RunResult> runs = new ArrayList<>();
        if (suite.runs.contains("relay") && !suite.modes.contains(BenchSuite.CONCURRENT) && suite.runs.size() == 1) {
            runs.add(relayBacklog(options.jar(), "relay", mainStream, main.groups(), suite.parallelism));
            return runs;
        }
        for (Pods.Count n : suite.instances) { // --instances: 1, or each count given in turn over the same stream
            runs.add(txinboxBacklog(options.jar(), n.name("txinbox"), mainStream, main.groups(),
                    n.parallelism() > 0 ? n.parallelism() : suite.parallelism, 0, jfr && n == suite.instances.get(0),
                    suite.bareSends, Map.of(), n.instances()));
        }
        if (suite.runs.contains("relay")) {
            runs.add(relayBacklog(options.jar(), "relay", mainStream, main.groups(), suite.parallelism));
        }
        if (suite.runs.contains("drain")) {
            runs.add(drain(mode, "drain ceiling", mainStream, main.groups()));
        }
        if (suite.runs.contains("naive")) {
            runs.add(naive(mode, "naive (article)", mainStream, main.groups()));
        }
        if (suite.runs.contains("camel")) {
            runs.add(camel(mode, "camel", mainStream, main.groups(), false));
        }
        if (suite.scalePoint()) {
            runs.add(txinboxBacklog(options.jar(), String.format("txinbox over %,d old rows", suite.oldRows), mainStream,
                    main.groups(), suite.parallelism, suite.oldRows, false));
        }
        return runs;
    }

    /**
     * The fresh-pod mode: for each of {@code --fresh-messages}, a stream of that size (the main stream's shape and
     * seed) queued whole, with no warm-up, before a fresh consumer starts on it; measured from the moment
     * {@link #FRESH_WINDOW_START} of its messages are done to the moment all are. txinbox as shipped (relay on) and
     * with its relay off ({@code --fresh-relay}), then the baselines asked for, each on the same stream.
     */
    private List<RunResult> fresh(StreamSpec main, boolean jfr) throws Exception {
        String mode = BenchSuite.FRESH;
        List<RunResult> runs = new ArrayList<>();
        for (int size : suite.freshMessages) {
            StreamSpec spec = main.withMessages(size);
            OrderStream stream = OrderStream.generate(spec);
            String suffix = String.format(" %,d", size);
            System.out.printf("  %,d messages (%d events of %d orders), no warm-up:%n", stream.oracle().messages(),
                    stream.oracle().events(), stream.oracle().orders().size());
            for (String relay : suite.freshRelay) {
                Map<String, String> extra = relay.equals("off") ? Map.of("TXINBOX_OUTBOX_RELAY_ENABLED", "false")
                        : Map.of();
                freshBroker();
                runs.add(txinboxQueued(mode, options.jar(), "txinbox, relay " + relay + suffix, stream, spec.groups(),
                        suite.parallelism, 0, jfr && runs.isEmpty(), false, extra, 1));
            }
            if (suite.runs.contains(BenchSuite.DUAL_WRITE)) {
                freshBroker();
                runs.add(camel(mode, "camel + publish (dual write)" + suffix, stream, spec.groups(), true));
            }
            if (suite.runs.contains("camel")) {
                freshBroker();
                runs.add(camel(mode, "camel" + suffix, stream, spec.groups(), false));
            }
            if (suite.runs.contains("naive")) {
                freshBroker();
                runs.add(naive(mode, "naive (article)" + suffix, stream, spec.groups()));
            }
            if (suite.runs.contains("drain")) {
                freshBroker();
                runs.add(drain(mode, "drain ceiling" + suffix, stream, spec.groups()));
            }
        }
        return runs;
    }

    /**
     * A broker of its own for the fresh mode's next run ({@code --fresh-broker}, on by default): ElasticMQ's FIFO
     * send copies the queue's recent deduplication ids, and its heap keeps what earlier runs left, so a run on a
     * used broker pays for its predecessors.
     */
    private void freshBroker() throws IOException, InterruptedException {
        if (suite.freshBroker) {
            broker.restart();
            System.out.printf("    a fresh broker (pid %d)%n", broker.pid());
        }
    }

    /**
     * Where a queued run's window opens: after the warm-up's messages (backlog), or at 20 % of the stream (fresh, and
     * a backlog with no warm-up). The tables are analyzed there: analyzed empty, PostgreSQL would plan for empty
     * tables the whole run (`update orders` 2.9 ms a message), which autovacuum spares a real server.
     */
    private static long windowStart(String mode, OrderStream warm, OrderStream stream) {
        return mode.equals(BenchSuite.FRESH) || warm == null
                ? (long) Math.ceil(stream.oracle().messages() * FRESH_WINDOW_START) : messages(warm);
    }

    // ------------------------------------------------------------------ the consumers

    /** txinbox in the concurrent mode: warmed up, then the stream sent (at {@code rate}/s, 0 = flat out). */
    RunResult txinbox(String name, OrderStream stream, int groups, int parallelism, double rate, boolean jfr)
            throws Exception {
        Queues queues = queues();
        Db.reset(DB);
        PgStatements.install(DB);
        Path log = logs.resolve(slug(BenchSuite.CONCURRENT + " " + name) + ".log");
        Map<String, String> env = Service.env(DB, sqs.endpoint(), queues.name, queues.dlqName, options.httpPort(),
                Map.of("TXINBOX_CONSUMERS_ORDERS_PARALLELISM", Integer.toString(parallelism)));
        try (Service service = Service.start(options.jar(), jfrOptions(jfr), env, log)) {
            service.awaitReady(Duration.ofMinutes(2));
            OrderStream warm = warmUpStream(suite.warmUp, groups);
            warmUp(queues, warm, service.child());
            // The relay publishes the warm-up's events first: a window opened before would time those (recorded
            // before it) as the stream's commit-to-send, and give the stream's run a relay still catching up.
            Downstream.awaitPublished(Db.url(DB), Bench::say);
            Db.analyze(DB);
            long messages = stream.oracle().messages();
            PgStatements statements = PgStatements.start(DB, Db.SERVICE_ROLE);
            Snapshot before = snapshot(service.pid(), DB);
            ServiceCounters countersBefore = service.counters();
            StageTimes stagesBefore = service.stageTimes();
            Producer producer = new Producer(sqs.client(), queues.url, suite.producerThreads, rate);
            producer.send(stream);
            // The window ends the moment the run is quiescent, not after the settle that checks it stays so.
            End end = new End(statements, messages);
            if (!quiescence(queues, stream.oracle(), warm.oracle().events()).await(List.of(service), Bench::say,
                    () -> end.read(service))) {
                end.read(service);
            }
            ServiceCounters countersAfter = end.counters;
            Map<String, StageTimes.Stage> stages = service.stageTimes().since(stagesBefore);
            service.saveMetrics(logs.resolve(slug(BenchSuite.CONCURRENT + " " + name) + ".metrics"));
            long lastCommit = Db.queryLong(Db.url(DB), "select (extract(epoch from max(processed_at)) * 1000)::bigint"
                    + " from inbox_messages");
            Window window = new Window(messages, (lastCommit - producer.firstSendMillis()) / 1000.0, before, end.snapshot,
                    countersAfter.totalRequests() - countersBefore.totalRequests(),
                    countersAfter.perCallSince(countersBefore, messages), end.statements);
            double[] latency = latency();
            Verifier.Verdict verdict = Verifier.txinbox(Db.url(DB), stream.oracle(), sqs.depth(queues.dlqUrl));
            RunResult result = result(name, "txinbox", BenchSuite.CONCURRENT, parallelism, groups, stream,
                    warm.oracle().messages(), 0, rate, window, service.child().peakRssMiB(), latency, stages, verdict, null,
                    log);
            deleteQueues(queues);
            return print(result);
        }
    }

    /**
     * txinbox ({@code jar}) in the backlog mode: the warm-up stream and then the whole stream in the queue (and
     * {@code oldRows} old rows in the inbox) before the service starts; measured from the moment the warm-up's
     * count of messages is done to the moment the stream's is done too (found by polling the service's outcome
     * counter, which costs PostgreSQL nothing).
     */
    RunResult txinboxBacklog(Path jar, String name, OrderStream stream, int groups, int parallelism, long oldRows,
            boolean jfr) throws Exception {
        return txinboxBacklog(jar, name, stream, groups, parallelism, oldRows, jfr, false, Map.of());
    }

    /**
     * {@link #txinboxBacklog} with {@code extra} settings in the service's environment (bench/ab's sides), and with
     * {@code bareSends}, a {@link BareSender} beside it in the window: one message sent to the events queue per
     * message applied, from the harness.
     */
    RunResult txinboxBacklog(Path jar, String name, OrderStream stream, int groups, int parallelism, long oldRows,
            boolean jfr, boolean bareSends, Map<String, String> extra) throws Exception {
        return txinboxBacklog(jar, name, stream, groups, parallelism, oldRows, jfr, bareSends, extra, 1);
    }

    /**
     * {@link #txinboxBacklog} with {@code instances} services on the database and queue ({@link Pods}: ports
     * {@code --http-port} and up, each with {@code parallelism} workers), their counters and CPU summed.
     */
    RunResult txinboxBacklog(Path jar, String name, OrderStream stream, int groups, int parallelism, long oldRows,
            boolean jfr, boolean bareSends, Map<String, String> extra, int instances) throws Exception {
        return txinboxQueued(BenchSuite.BACKLOG, jar, name, stream, groups, parallelism, oldRows, jfr, bareSends, extra,
                instances);
    }

    /**
     * txinbox on a queue filled before it starts: in the backlog {@code mode} behind the warm-up, measured from the
     * warm-up's count done; in the fresh-pod mode with no warm-up, measured from 20 % of the stream done.
     */
    private RunResult txinboxQueued(String mode, Path jar, String name, OrderStream stream, int groups, int parallelism,
            long oldRows, boolean jfr, boolean bareSends, Map<String, String> extra, int instances) throws Exception {
        Queues queues = queues();
        Db.reset(DB);
        PgStatements.install(DB);
        String slug = slug(mode + " " + name);
        Map<String, String> settings = new HashMap<>(extra);
        settings.put("TXINBOX_CONSUMERS_ORDERS_PARALLELISM", Integer.toString(parallelism));
        boolean relayOn = relayOn(settings);
        OldRows.Load load = null;
        if (oldRows > 0) {
            migrate(jar, settings, logs.resolve(slug + "-migrate.log"));
            load = OldRows.load(Db.url(DB), oldRows);
            System.out.printf("    %,d old rows: insert %.1f s, vacuum analyze %.1f s, with the checkpoint %.1f s;"
                    + " inbox %.0f MiB%n", oldRows, load.insertSeconds(), load.vacuumSeconds(), load.totalSeconds(),
                    load.tableBytes() / 1048576.0);
        }
        OrderStream warm = mode.equals(BenchSuite.FRESH) ? null : backlogWarmUp(groups);
        fill(queues, warm, stream);
        Path log = logs.resolve(slug + ".log");
        Map<String, String> env = Service.env(DB, sqs.endpoint(), queues.name, queues.dlqName, options.httpPort(),
                settings);
        try (Pods service = Pods.start(instances, jar, jfrOptions(jfr), env, options.httpPort(), log)) {
            long warmUp = messages(warm);
            long start = windowStart(mode, warm, stream);
            awaitDone(service, start, false);
            Db.analyze(DB);
            Reading from = awaitDone(service, start, false);
            long[] doneFrom = service.doneEach();
            double[] cpuFrom = service.cpuEach();
            PgStatements statements = PgStatements.start(DB, Db.SERVICE_ROLE);
            Snapshot before = snapshot(service.pids(), DB);
            BareSender sender = bareSends ? new BareSender(sqs.client(), queues.eventsUrl, from.counters.done()) : null;
            Reading to;
            Snapshot after;
            try {
                to = awaitDone(service, warmUp + stream.oracle().messages(), true, sender);
                if (relayOn) {
                    to = awaitAllPublished(service, to);
                }
                after = snapshot(service.pids(), DB);
                if (!suite.instances.equals(List.of(Pods.Count.ONE))) {
                    service.split(name, doneFrom, service.doneEach(), cpuFrom, service.cpuEach());
                }
            } finally {
                if (sender != null) {
                    sender.close(); // its threads would go on polling through the next runs
                }
            }
            if (sender != null) {
                System.out.printf("    bare sends beside it: %d messages in %d SendMessageBatch calls%n", sender.sent(),
                        sender.calls());
            }
            long measured = to.counters.done() - from.counters.done();
            PgStatements.Count counted = statements.end(measured);
            service.saveMetrics(logs.resolve(slug + ".metrics"));
            Map<String, Map<String, Double>> calls = to.counters.perCallSince(from.counters, measured);
            if (relayOn) {
                calls.put(RELAY_SENDS, to.counters.relaySendsSince(from.counters, measured));
            }
            Window window = new Window(measured, (to.atMillis - from.atMillis) / 1000.0, before, after,
                    to.counters.totalRequests() - from.counters.totalRequests(), calls, counted);
            // Outside the window: every event in the inbox and every poison message in the DLQ, as the oracle wants.
            // The warm-up's events are PROCESSED besides the stream's, as are the old rows; it has no poison.
            quiescence(queues, stream.oracle(), oldRows + events(warm)).await(service.services(), Bench::say);
            Verifier.Verdict verdict = Verifier.txinbox(Db.url(DB), stream.oracle(), sqs.depth(queues.dlqUrl));
            RunResult result = result(name, "txinbox", mode, parallelism, groups, stream, warmUp, oldRows,
                    0, window, service.peakRssMiB(), null, null, verdict, load, log);
            deleteQueues(queues);
            return print(result);
        }
    }

    /**
     * The outbox relay alone, over a backlog of outbox events: the service first consumes the warm-up and the
     * stream with its relay off, so that every applied event leaves one pending outbox event; then it starts again
     * with the relay on and nothing to consume. Measured from the moment the warm-up's share of the events is
     * published (the JIT's compiling and the first pages are behind it) to the moment all are, by polling the
     * service's published counter. The verdict is downstream's: every applied event caused exactly one outbox
     * event, each reached the events queue once, per order in sequence order.
     */
    RunResult relayBacklog(Path jar, String name, OrderStream stream, int groups, int parallelism) throws Exception {
        return relayBacklog(jar, name, stream, groups, parallelism, Map.of());
    }

    /** {@link #relayBacklog} with {@code extra} settings in the service's environment (bench/ab's sides). */
    RunResult relayBacklog(Path jar, String name, OrderStream stream, int groups, int parallelism,
            Map<String, String> extra) throws Exception {
        Queues queues = queues();
        Db.reset(DB);
        PgStatements.install(DB);
        String slug = slug(BenchSuite.BACKLOG + " " + name);
        OrderStream warm = backlogWarmUp(groups);
        fill(queues, warm, stream);
        Map<String, String> settings = new HashMap<>(extra);
        settings.put("TXINBOX_CONSUMERS_ORDERS_PARALLELISM", Integer.toString(parallelism));
        settings.put("TXINBOX_OUTBOX_RELAY_ENABLED", "false");
        // The verdict reads what the relay published from the table's marks (Recorded): the history is kept here.
        settings.putIfAbsent("TXINBOX_OUTBOX_KEEP_PUBLISHED", "true");
        long recordedMillis = System.currentTimeMillis();
        try (Service service = Service.start(jar, List.of(),
                Service.env(DB, sqs.endpoint(), queues.name, queues.dlqName, options.httpPort(), settings),
                logs.resolve(slug + "-record.log"))) {
            awaitDone(service, messages(warm) + stream.oracle().messages(), false);
            quiescence(queues, stream.oracle(), events(warm)).await(List.of(service), Bench::say);
        }
        long events = Db.queryLong(Db.url(DB), "select count(*) from outbox_events");
        System.out.printf("    %d outbox events recorded with the relay off in %.1f s%n", events,
                (System.currentTimeMillis() - recordedMillis) / 1000.0);
        Db.analyze(DB);
        long warmUpEvents = Math.round((double) events * messages(warm) / (messages(warm) + messages(stream)));
        settings.put("TXINBOX_OUTBOX_RELAY_ENABLED", "true");
        Path log = logs.resolve(slug + ".log");
        try (Service service = Service.start(jar, List.of(),
                Service.env(DB, sqs.endpoint(), queues.name, queues.dlqName, options.httpPort(), settings), log)) {
            Reading from = awaitPublished(service, warmUpEvents);
            PgStatements statements = PgStatements.start(DB, Db.SERVICE_ROLE);
            Snapshot before = snapshot(service.pid(), DB);
            Reading to = awaitPublished(service, events);
            Snapshot after = snapshot(service.pid(), DB);
            long measured = to.counters.published() - from.counters.published();
            PgStatements.Count counted = statements.end(measured);
            service.saveMetrics(logs.resolve(slug + ".metrics"));
            long sends = to.counters.sends() - from.counters.sends();
            Window window = new Window(measured, (to.atMillis - from.atMillis) / 1000.0, before, after, sends,
                    Map.of("SendMessageBatch", Map.of("calls per event", (double) sends / Math.max(1, measured))),
                    counted);
            double pacedRate = suite.relayPacedRate > 0 ? suite.relayPacedRate
                    : Math.max(50, Math.floor(measured / window.seconds / 2 / 50) * 50);
            Map<String, StageTimes.Stage> paced = relayPaced(service, events, pacedRate, suite.pacedSeconds);
            StageTimes.Stage recordToSend = paced.get(StageTimes.OUTBOX);
            double[] latency = recordToSend == null ? null
                    : new double[] { recordToSend.p50Ms(), recordToSend.p95Ms(), recordToSend.p99Ms() };
            Downstream downstream = Downstream.inspect(sqs, queues.eventsUrl,
                    Db.url(DB), Bench::say);
            System.out.printf("    downstream: %d events, %d received, %d copies, %d pending, %d lost, %d out of order%n",
                    downstream.events(), downstream.received(), downstream.copies(), downstream.pending(),
                    downstream.lost(), downstream.outOfOrder());
            Verifier.Verdict verdict = new Verifier.Verdict(
                    downstream.pending() + downstream.lost() + downstream.missing(),
                    downstream.outOfOrder() + downstream.gaps(), downstream.doubled() + downstream.copies(),
                    downstream.unexpected(), Map.of(), sqs.depth(queues.dlqUrl), downstream.examples());
            RunResult result = result(name, "relay", BenchSuite.BACKLOG, parallelism, groups, stream, warmUpEvents, 0,
                    pacedRate, window, service.child().peakRssMiB(), latency, paced, verdict, null, log);
            deleteQueues(queues);
            return print(result);
        }
    }

    /**
     * The relay's latency at {@code rate} events/s (half what it just did flat out): for {@code seconds}, the harness
     * commits events straight into {@code outbox_events} every 10 ms, as another pod's handlers would, each
     * transaction notifying the relays as the service's own recording does when another pod owns the partition
     * (docs/OUTBOX.md), over 500 aggregates, each with its next sequence. What the service's record-to-send histogram
     * gained meanwhile: from each event's timestamp (its commit, here) to its send. {@code recorded}: the events the
     * service had published before.
     */
    private Map<String, StageTimes.Stage> relayPaced(Service service, long recorded, double rate, int seconds)
            throws Exception {
        int aggregates = 500;
        // The service's default txinbox.outbox.partitions, and below its Outbox.partitionOf: the harness runs the
        // service as a process and does not link its classes, so the two must be kept in step by hand.
        int partitions = 16;
        long[] sequences = new long[aggregates];
        StageTimes before = service.stageTimes();
        long total = (long) (rate * seconds);
        long sent = 0;
        long start = System.nanoTime();
        try (Connection db = Db.connect(Db.url(DB)); PreparedStatement insert = db.prepareStatement("""
                with written as (
                  insert into outbox_events (id, aggregatetype, aggregateid, type, timestamp, payload, sequence, partition)
                  select gen_random_uuid(), 'order', a, 'Paced', clock_timestamp(), jsonb_build_object('causedBy', c), s, p
                    from unnest(?::text[], ?::text[], ?::bigint[], ?::int[]) as u(a, c, s, p)
                  returning partition)
                select pg_notify('txinbox_outbox', string_agg(distinct partition::text, ',')) from written""")) {
            while (sent < total) {
                long due = Math.min(total, (long) ((System.nanoTime() - start) / 1e9 * rate));
                int n = (int) (due - sent);
                if (n > 0) {
                    String[] ids = new String[n];
                    String[] causes = new String[n];
                    Long[] seqs = new Long[n];
                    Integer[] parts = new Integer[n];
                    for (int i = 0; i < n; i++) {
                        int aggregate = (int) ((sent + i) % aggregates);
                        ids[i] = "paced-" + aggregate;
                        causes[i] = "paced-" + (sent + i);
                        seqs[i] = ++sequences[aggregate];
                        parts[i] = Math.floorMod(ids[i].hashCode(), partitions);
                    }
                    insert.setArray(1, db.createArrayOf("text", ids));
                    insert.setArray(2, db.createArrayOf("text", causes));
                    insert.setArray(3, db.createArrayOf("bigint", seqs));
                    insert.setArray(4, db.createArrayOf("integer", parts));
                    insert.executeQuery().close();
                    sent = due;
                }
                Thread.sleep(10);
            }
        }
        awaitPublished(service, recorded + total);
        Map<String, StageTimes.Stage> stages = service.stageTimes().since(before);
        StageTimes.Stage s = stages.get(StageTimes.OUTBOX);
        if (s != null) {
            System.out.printf("    paced at %.0f events/s for %d s (%d events): record to send p50/p95/p99 %.0f/%.0f/%.0f ms%n",
                    rate, seconds, total, s.p50Ms(), s.p95Ms(), s.p99Ms());
        }
        return stages;
    }

    /** The relay's sends in a window's SQS calls: calls, per message consumed, events per call. */
    static final String RELAY_SENDS = "relay SendMessageBatch";

    private static boolean relayOn(Map<String, String> settings) {
        return !"false".equalsIgnoreCase(settings.getOrDefault("TXINBOX_OUTBOX_RELAY_ENABLED", "true").trim());
    }

    /**
     * With the relay on, a run's work is done once what it recorded is published too: the relay may still be
     * sending when the last message is consumed, and a window that closed then would leave that work out. Every
     * event this database recorded is the sum of its counters (they are never deleted, and hand out 1, 2, 3 ...
     * per aggregate), published by this run's service since it started.
     */
    private Reading awaitAllPublished(Pods service, Reading consumed) throws Exception {
        long recorded = Db.queryLong(Db.url(DB), "select coalesce(sum(last_sequence), 0) from outbox_sequences");
        if (consumed.counters.published() >= recorded) {
            return consumed;
        }
        Reading published = awaitPublished(service, recorded);
        System.out.printf("    the relay published the last of %,d events %.1f s after the last message was consumed%n",
                recorded, (published.atMillis - consumed.atMillis) / 1000.0);
        return published;
    }

    /** Polls the service's published counter every 250 ms until {@code published} events are out. */
    private Reading awaitPublished(Service service, long published) throws Exception {
        return awaitPublished(Pods.of(service), published);
    }

    private Reading awaitPublished(Pods service, long published) throws Exception {
        long lastCount = -1;
        long lastProgress = System.currentTimeMillis();
        while (true) {
            if (!service.isAlive()) {
                throw new IllegalStateException("the service died; see " + service.log());
            }
            try {
                Reading reading = new Reading(service.counters(), System.currentTimeMillis());
                if (reading.counters.published() >= published) {
                    return reading;
                }
                if (reading.counters.published() != lastCount) {
                    lastCount = reading.counters.published();
                    lastProgress = reading.atMillis;
                } else if (reading.atMillis - lastProgress > NO_PROGRESS_MILLIS) {
                    System.out.printf("  no progress for 2 minutes: %d of %d events published%n", lastCount, published);
                    return reading;
                }
            } catch (IOException e) {
                // not listening yet (starting)
            }
            Thread.sleep(250);
        }
    }

    /**
     * Starts the service once against queues of its own, so that its Flyway creates the schema the old rows
     * go into; it consumes nothing, and no receive of it can take a message of the run's queue.
     */
    private void migrate(Path jar, Map<String, String> settings, Path log) throws Exception {
        Queues scratch = queues();
        Map<String, String> env = Service.env(DB, sqs.endpoint(), scratch.name, scratch.dlqName, options.httpPort(),
                settings);
        try (Service service = Service.start(jar, List.of(), env, log)) {
            service.awaitReady(Duration.ofMinutes(2));
        }
        deleteQueues(scratch);
    }

    RunResult drain(String mode, String name, OrderStream stream, int groups) throws Exception {
        int pollers = Math.min(8, groups);
        return baseline(mode, name, "drain", Drain.class.getName(), null, pollers, stream, groups, null,
                queues -> List.of(queues.url, Integer.toString(pollers)),
                queues -> new Verifier.Verdict(0, 0, 0, 0, Map.of(), 0, List.of("no database: nothing to verify")));
    }

    RunResult naive(String mode, String name, OrderStream stream, int groups) throws Exception {
        Db.reset(NAIVE_DB);
        PgStatements.install(NAIVE_DB);
        return baseline(mode, name, "naive", Naive.class.getName(), null, 1, stream, groups, NAIVE_DB,
                queues -> List.of(queues.url, Db.url(NAIVE_DB)),
                queues -> Verifier.naive(Db.url(NAIVE_DB), stream.oracle()));
    }

    /**
     * The Camel baseline (bench/camel: an aws2-sqs route, 4 concurrent consumers of 10 per poll, transacted, an
     * idempotentConsumer on a JdbcMessageIdRepository, an upsert of the order row per event), on its own classpath;
     * with {@code publish}, the dual write ({@link BenchSuite#DUAL_WRITE}): one SendMessage to the
     * run's events queue per applied event, inside the route's transaction. Its verdict says how many events reached
     * that queue against the stream's.
     */
    RunResult camel(String mode, String name, OrderStream stream, int groups, boolean publish) throws Exception {
        if (!Files.exists(CAMEL_CLASSPATH)) {
            throw new IllegalStateException(CAMEL_CLASSPATH + " is missing: ./mvnw -q -B -f bench/camel/pom.xml package"
                    + " (bench/run does it)");
        }
        String classpath = CAMEL_CLASSES + ":" + Files.readString(CAMEL_CLASSPATH).trim();
        Db.reset(CAMEL_DB);
        PgStatements.install(CAMEL_DB);
        String consumer = publish ? BenchSuite.DUAL_WRITE : "camel";
        return baseline(mode, name, consumer, "dev.txinbox.camel.CamelConsumer", classpath, 4, stream, groups, CAMEL_DB,
                queues -> publish ? List.of(queues.url, Db.url(CAMEL_DB), queues.eventsName())
                        : List.of(queues.url, Db.url(CAMEL_DB)),
                queues -> {
                    Verifier.Verdict verdict = Verifier.camel(Db.url(CAMEL_DB), stream.oracle());
                    return publish ? verdict.noting(String.format("%,d events published downstream (the stream's: %,d)",
                            sqs.depth(queues.eventsUrl), stream.oracle().events())) : verdict;
                });
    }

    private interface VerdictSource {
        Verifier.Verdict verdict(Queues queues) throws SQLException;
    }

    /**
     * A baseline consumer in its own JVM: in the concurrent mode warmed up like the service, then sent the
     * stream; in the backlog mode started on the full queue (the same warm-up ahead of the stream as the
     * service's) and measured from its progress line at the warm-up's count. It exits once it has taken every
     * message and reports its own CPU (by thread too), SQS calls and last commit, since /proc has nothing left
     * to read by then. {@code database}: where its statements are counted (null: it has none); it connects as
     * the harness does, so they are counted by database alone, which the harness leaves alone meanwhile.
     */
    private RunResult baseline(String mode, String name, String consumer, String mainClass, String classpath,
            int parallelism, OrderStream stream, int groups, String database,
            java.util.function.Function<Queues, List<String>> arguments, VerdictSource verdict) throws Exception {
        boolean fresh = mode.equals(BenchSuite.FRESH);
        boolean backlog = mode.equals(BenchSuite.BACKLOG) || fresh;
        Queues queues = queues();
        Path log = logs.resolve(slug(mode + " " + name) + ".log");
        OrderStream warm = fresh ? null : backlog ? backlogWarmUp(groups) : warmUpStream(suite.warmUp, groups);
        long messages = stream.oracle().messages();
        long warmUp = messages(warm);
        long total = warmUp + messages;
        List<String> args = new ArrayList<>(List.of(sqs.endpoint()));
        args.addAll(arguments.apply(queues));
        args.add(Long.toString(total));
        if (backlog) {
            fill(queues, warm, stream);
        }
        List<String> command = classpath == null ? Child.java(mainClass, List.of("-Xmx256m"), args.toArray(String[]::new))
                : Child.javaWithClasspath(mainClass, classpath, List.of("-Xmx256m"), args.toArray(String[]::new));
        try (Child child = Child.start(command, Map.of(), log)) {
            Progress.Reader progress = new Progress.Reader(log);
            Progress.Mark from;
            Snapshot before;
            PgStatements statements;
            if (backlog) {
                long start = windowStart(mode, warm, stream);
                awaitProgress(child, progress, start);
                if (database != null) {
                    Db.analyze(database);
                }
                from = awaitProgress(child, progress, start);
                statements = database == null ? null : PgStatements.start(database, null);
                // The consumer's own figures come with its line; the harness reads the rest as it sees it.
                before = snapshot(child.pid(), database).withConsumer(from.cpuMillis());
            } else {
                warmUp(queues, warm, child);
                if (database != null) {
                    Db.analyze(database);
                }
                Progress.Mark warmedUp = progress.latest();
                statements = database == null ? null : PgStatements.start(database, null);
                before = snapshot(child.pid(), database);
                Producer producer = new Producer(sqs.client(), queues.url, suite.producerThreads, 0);
                producer.send(stream);
                // From the first send, as the service's concurrent runs.
                from = new Progress.Mark(total - messages, producer.firstSendMillis(), before.consumer(),
                        warmedUp == null ? 0 : warmedUp.sqsRequests());
            }
            // Read as the summary appears: the baseline keeps its connections open a second after printing it, so that
            // its database's backends are still there to be read.
            JsonNode summary = awaitSummaryLine(child, log);
            Snapshot after = snapshot(child.pid(), database).withConsumer(summary.get("cpuMillis").asDouble(),
                    JSON.convertValue(summary.get("threadCpuMillis"), THREADS));
            awaitSummary(child, log);
            long measured = summary.get("handled").asLong() - from.handled();
            Window window = new Window(measured, (summary.get("lastCommitMillis").asLong() - from.atMillis()) / 1000.0,
                    before, after, summary.get("sqsRequests").asLong() - from.sqsRequests(), null,
                    statements == null ? null : statements.end(measured));
            RunResult result = result(name, consumer, mode, parallelism, groups, stream, warmUp, 0, 0, window,
                    child.peakRssMiB(), null, null, verdict.verdict(queues), null, log);
            deleteQueues(queues);
            return print(result);
        }
    }

    // ------------------------------------------------------------------ measuring

    /** CPU at one moment, in milliseconds: the consumer (and by thread), PostgreSQL, the broker, the harness. */
    private record Snapshot(double consumer, double postgres, double broker, double producer, double machine,
            Map<String, Double> threads, Map<Long, Double> databaseBackends) {

        /** What a baseline's progress line says of its own CPU, which its /proc entry says later. */
        Snapshot withConsumer(double cpuMillis) {
            return new Snapshot(cpuMillis, postgres, broker, producer, machine, threads, databaseBackends);
        }

        /** A baseline reports its own CPU as it exits; /proc has nothing left to read then. */
        Snapshot withConsumer(double cpuMillis, Map<String, Double> threads) {
            return new Snapshot(cpuMillis, postgres, broker, producer, machine, threads, databaseBackends);
        }
    }

    /**
     * What was measured between two snapshots: messages, seconds, CPU, the consumer's SQS calls and its
     * statements in PostgreSQL (null: none to count).
     */
    private record Window(long messages, double seconds, Snapshot before, Snapshot after, long sqsRequests,
            Map<String, Map<String, Double>> sqsCalls, PgStatements.Count statements) {
    }

    /** The service's counters as read at one moment. */
    private record Reading(ServiceCounters counters, long atMillis) {
    }

    /**
     * Sends the warm-up (if any) and then the whole stream before any consumer runs: the backlog a consumer
     * meets after an outage. Each group's warm-up messages are ahead of its stream messages.
     */
    private void fill(Queues queues, OrderStream warm, OrderStream stream) throws InterruptedException {
        long started = System.currentTimeMillis();
        long sent = 0;
        for (OrderStream part : warm == null ? List.of(stream) : List.of(warm, stream)) {
            Producer producer = new Producer(sqs.client(), queues.url, suite.producerThreads, 0);
            producer.send(part);
            sent += producer.sent();
        }
        System.out.printf("    queue filled with %d messages (%d of them warm-up) in %.1f s%n", sent, messages(warm),
                (System.currentTimeMillis() - started) / 1000.0);
    }

    /**
     * Polls the service's counters (a Prometheus scrape: no database) every 250 ms until {@code done}
     * messages have an outcome. A scrape costs the service ~4 ms of CPU once warm, billed to the run when
     * inside the window: there ({@code inWindow}) the poll is every 250 ms only near the target and up to
     * every 2 s while it is far off at the window's pace. Gives up on the run if the service dies, and stops
     * waiting after two minutes without progress (the oracle check then says what is missing).
     */
    private Reading awaitDone(Service service, long done, boolean inWindow) throws Exception {
        return awaitDone(service, done, inWindow, null);
    }

    /** {@link #awaitDone}, telling {@code sender} (if any) every count read, at least every 250 ms. */
    private Reading awaitDone(Service service, long done, boolean inWindow, BareSender sender) throws Exception {
        return awaitDone(Pods.of(service), done, inWindow, sender);
    }

    /** {@link #awaitDone} over instances' summed counters ({@code --instances}). */
    private Reading awaitDone(Pods service, long done, boolean inWindow) throws Exception {
        return awaitDone(service, done, inWindow, null);
    }

    private Reading awaitDone(Pods service, long done, boolean inWindow, BareSender sender) throws Exception {
        Reading first = null;
        Reading last = null;
        long lastProgress = System.currentTimeMillis();
        while (true) {
            if (!service.isAlive()) {
                throw new IllegalStateException("the service died; see " + service.log());
            }
            long pause = 250;
            try {
                Reading reading = new Reading(service.counters(), System.currentTimeMillis());
                if (sender != null) {
                    sender.follow(reading.counters.done());
                }
                if (reading.counters.done() >= done) {
                    return reading;
                }
                if (last == null || reading.counters.done() != last.counters.done()) {
                    last = reading;
                    lastProgress = reading.atMillis;
                }
                if (first == null) {
                    first = reading;
                }
                double perMilli = (double) (reading.counters.done() - first.counters.done())
                        / Math.max(1, reading.atMillis - first.atMillis);
                if (inWindow && perMilli > 0 && sender == null) {
                    pause = Math.max(250, Math.min(2000, (long) ((done - reading.counters.done()) / perMilli / 4)));
                }
            } catch (IOException e) {
                // not listening yet (starting)
            }
            if (System.currentTimeMillis() - lastProgress > NO_PROGRESS_MILLIS) {
                System.out.printf("  no progress for 2 minutes: %s of %d messages done%n",
                        last == null ? "none" : Long.toString(last.counters.done()), done);
                if (last == null) {
                    throw new IllegalStateException("the service did nothing for 2 minutes; see " + service.log());
                }
                return last;
            }
            Thread.sleep(pause);
        }
    }

    /** Follows a baseline's progress lines until {@code handled} messages are done. */
    private static Progress.Mark awaitProgress(Child child, Progress.Reader progress, long handled) throws Exception {
        long deadline = System.currentTimeMillis() + 3_600_000;
        while (true) {
            Progress.Mark mark = progress.latest();
            if (mark != null && mark.handled() >= handled) {
                return mark;
            }
            if (!child.isAlive() || System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("baseline stopped short of " + handled + " messages; see " + child.log());
            }
            Thread.sleep(Progress.INTERVAL_MILLIS);
        }
    }

    /**
     * Every consumer starts cold (a fresh JVM). A warm-up stream of other orders goes through it first, so
     * that the measurement sees compiled code and warm connections, as a long-running pod does: in the
     * concurrent mode before the stream is sent, in the backlog mode queued ahead of it. Its ids have their
     * own prefix and it has no poison, so the oracle check of the stream leaves it out.
     */
    private OrderStream warmUpStream(int messages, int groups) {
        StreamSpec main = suite.spec(options);
        return OrderStream.generate(new StreamSpec(messages, groups, main.duplicateRate(), main.outOfOrderRate(),
                0, main.payloadBytes(), main.seed() + 1), WARM_UP);
    }

    /** The backlog mode's warm-up ({@code --backlog-warm-up}); null when it is 0. */
    private OrderStream backlogWarmUp(int groups) {
        if (suite.backlogWarmUp == 0) {
            return null;
        }
        return backlogWarmUps.computeIfAbsent(groups, g -> warmUpStream(suite.backlogWarmUp, g));
    }

    private static long messages(OrderStream stream) {
        return stream == null ? 0 : stream.oracle().messages();
    }

    private static long events(OrderStream stream) {
        return stream == null ? 0 : stream.oracle().events();
    }

    private void warmUp(Queues queues, OrderStream warm, Child consumer) throws Exception {
        new Producer(sqs.client(), queues.url, suite.producerThreads, 0).send(warm);
        long deadline = System.currentTimeMillis() + 600_000;
        while (sqs.depth(queues.url) > 0) {
            if (!consumer.isAlive() || System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("warm-up did not drain; see " + consumer.log());
            }
            Thread.sleep(200);
        }
        Thread.sleep(500); // the last commits and deletes settle
    }

    /** {@code database}: whose backends' CPU to read besides the whole server's (null: none). */
    private Snapshot snapshot(long consumerPid, String database) {
        return snapshot(List.of(consumerPid), database);
    }

    /** {@link #snapshot} of instances ({@code --instances}): their CPU, and by thread name, summed. */
    private Snapshot snapshot(List<Long> consumerPids, String database) {
        double consumer = 0;
        Map<String, Double> threads = new HashMap<>();
        for (long pid : consumerPids) {
            consumer += Proc.cpuMillis(pid);
            Proc.threadCpuMillis(pid).forEach((thread, ms) -> threads.merge(thread, ms, Double::sum));
        }
        return new Snapshot(consumer, Proc.postgresCpuMillis(), Proc.cpuMillis(broker.pid()), Proc.ownCpuMillis(),
                Proc.machineBusyMillis(), threads, database == null ? null : Proc.postgresBackendsCpuMillis(database));
    }

    private RunResult result(String name, String consumer, String mode, int parallelism, int groups,
            OrderStream stream, long warmUp, long oldRows, double rate, Window w, double rss, double[] latency,
            Map<String, StageTimes.Stage> stages, Verifier.Verdict verdict, OldRows.Load load, Path log) {
        long messages = Math.max(1, w.messages);
        double seconds = Math.max(0.001, w.seconds);
        double consumerCpu = (w.after.consumer - w.before.consumer) / messages;
        double postgresCpu = (w.after.postgres - w.before.postgres) / messages;
        double brokerCpu = (w.after.broker - w.before.broker) / messages;
        Map<String, Double> threads = Proc.threadCpuDeltas(w.before.threads, w.after.threads);
        Double jit = threads.containsKey(JIT_THREADS) ? threads.get(JIT_THREADS) / messages : null;
        Double relayThreads = !consumer.equals("relay") ? null : RELAY_THREADS.stream()
                .mapToDouble(t -> threads.getOrDefault(t, 0.0)).sum() / messages;
        Map<String, Double> cpuGroups = new LinkedHashMap<>();
        CPU_GROUPS.forEach(g -> cpuGroups.put(g, 0.0));
        threads.forEach((thread, ms) -> cpuGroups.merge(cpuGroup(thread), ms / messages, Double::sum));
        cpuGroups.replaceAll((g, v) -> Math.round(v * 1000) / 1000.0);
        // The consumer's database's own backends, alive as the window closes (a pool's connections live through it):
        // what the whole server's figure is when nothing else uses PostgreSQL, less its shared background work.
        Double databaseCpu = w.after.databaseBackends == null ? null : w.after.databaseBackends.entrySet().stream()
                .mapToDouble(e -> e.getValue() - w.before.databaseBackends.getOrDefault(e.getKey(), 0.0)).sum()
                / messages;
        return new RunResult(name, consumer, mode, parallelism, groups, stream.oracle().messages(), warmUp, oldRows,
                w.messages, rate, seconds, w.messages / seconds, consumerCpu, postgresCpu,
                w.statements == null ? null : w.statements.perMessage(), brokerCpu,
                consumerCpu + postgresCpu + brokerCpu, (w.after.producer - w.before.producer) / messages,
                (double) w.sqsRequests / messages, w.sqsCalls, rss,
                latency == null ? null : latency[0], latency == null ? null : latency[1],
                latency == null ? null : latency[2], verdict, jit, perMessage(threads, messages),
                w.statements, stages, load, results.relativize(log).toString(), relayThreads, cpuGroups, databaseCpu);
    }

    /** The {@link #CPU_GROUPS} group of a thread, by its name as /proc has it (15 characters, digits as N). */
    static String cpuGroup(String thread) {
        if (thread.equals(JIT_THREADS)) {
            return "JIT";
        }
        if (RELAY_THREADS.contains(thread)) {
            return "relay";
        }
        if (thread.startsWith("GC Thread") || thread.startsWith("G1 ") || thread.equals("VM Thread")) {
            return "GC and VM thread";
        }
        if (thread.startsWith("vert.x-eventloo") || thread.startsWith("aws-java-sdk-Ne") || thread.startsWith("sdk-async")) {
            return "event loop";
        }
        if (thread.startsWith("txinbox-orders") || thread.startsWith("Camel (camel") || thread.equals("java")
                || thread.equals("main") || thread.startsWith("drain-")) {
            return "workers";
        }
        return "other";
    }

    /** A flight recording of the service, when asked for (the first txinbox run only). */
    private List<String> jfrOptions(boolean jfr) {
        return jfr ? List.of("-XX:StartFlightRecording=filename=" + results.resolve("profile-" + options.size() + ".jfr")
                + ",settings=profile") : List.of();
    }

    /** CPU ms per message by thread group, largest first, leaving out what rounds to nothing. */
    private static Map<String, Double> perMessage(Map<String, Double> threads, long messages) {
        Map<String, Double> result = new LinkedHashMap<>();
        threads.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() / messages))
                .filter(e -> e.getValue() >= 0.005)
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .forEach(e -> result.put(e.getKey(), Math.round(e.getValue() * 1000) / 1000.0));
        return result;
    }

    /** SentTimestamp (kept in the inbox row) to the committing transaction, for processed events. */
    /**
     * Latency p50/p95/p99 of the stream's applied events, from the moment each could be applied to its commit's
     * transaction: its own send, or its predecessor's where the producer sent that later (the stream's
     * out-of-order events, parked until it comes: that wait is the producer's, not the consumer's). The same
     * from the event's own send is printed beside it.
     */
    private double[] latency() throws SQLException {
        List<Double> applicable = new ArrayList<>();
        List<Double> fromSend = new ArrayList<>();
        try (Connection db = Db.connect(Db.url(DB));
                Statement s = db.createStatement();
                ResultSet rs = s.executeQuery("select extract(epoch from m.processed_at - m.source_sent_at) * 1000,"
                        + " extract(epoch from m.processed_at - greatest(m.source_sent_at, p.source_sent_at)) * 1000"
                        + " from inbox_messages m left join inbox_messages p on p.consumer_name = m.consumer_name"
                        + " and p.aggregate_id = m.aggregate_id and p.sequence_number = m.sequence_number - 1"
                        + " and p.status <> 'DEAD'"
                        + " where m.status = 'PROCESSED' and m.source_sent_at is not null"
                        + " and m.message_id not like 'evt-ord-" + WARM_UP + "%'")) {
            while (rs.next()) {
                fromSend.add(rs.getDouble(1));
                applicable.add(rs.getDouble(2));
            }
        }
        if (applicable.isEmpty()) {
            return null;
        }
        applicable.sort(null);
        fromSend.sort(null);
        say(String.format("latency from the event's own send (out-of-order events wait for their predecessor's):"
                + " p50/p95/p99/p99.9 %.0f/%.0f/%.0f/%.0f ms", percentile(fromSend, 50), percentile(fromSend, 95),
                percentile(fromSend, 99), percentile(fromSend, 99.9)));
        return new double[] { percentile(applicable, 50), percentile(applicable, 95), percentile(applicable, 99) };
    }

    private static double percentile(List<Double> sorted, double p) {
        int index = (int) Math.ceil(p / 100 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    private RunResult print(RunResult r) {
        if (!r.consumerThreadsCpuMs().isEmpty()) {
            System.out.println("    consumer CPU ms/msg by thread: " + r.consumerThreadsCpuMs());
            System.out.println("    consumer CPU ms/msg by group: " + r.consumerCpuGroupsMs());
        }
        if (r.jitCpuMs() != null) {
            System.out.printf("    JIT compiler threads: %.3f ms/msg of the consumer's %.3f (%.0f %%) after %d warm-up"
                    + " messages%n", r.jitCpuMs(), r.consumerCpuMs(), 100 * r.jitCpuMs() / Math.max(1e-9, r.consumerCpuMs()),
                    r.warmUpMessages());
        }
        if (r.relayThreadsCpuMs() != null) {
            System.out.printf("    the relay's own threads %s: %.3f ms CPU/event%n", RELAY_THREADS, r.relayThreadsCpuMs());
        }
        if (r.sqsCalls() != null) {
            System.out.println("    SQS calls: " + r.sqsCalls());
        }
        if (r.stages() != null && !r.stages().isEmpty()) {
            r.stages().forEach((stage, t) -> System.out.printf("    stage %-20s mean %7.2f ms  p50 %7.2f  p95 %7.2f  p99 %7.2f"
                    + " ms%n", stage, t.meanMs(), t.p50Ms(), t.p95Ms(), t.p99Ms()));
        }
        if (r.pgStatements() != null) {
            System.out.printf("    PostgreSQL statements: %d, %.2f per message%s; the costliest, per message (calls, µs executing):%n",
                    r.pgStatements().calls(), r.pgStatementsPerMessage(), r.pgStatements().deallocated() == 0 ? ""
                            : " (SHORT: pg_stat_statements evicted " + r.pgStatements().deallocated() + " entries meanwhile)");
            r.pgStatements().top().forEach(t -> System.out.printf("      %6.3f %7.1f  %s%n", t.perMessage(),
                    t.execMicrosPerMessage(), t.query()));
            PgStatements.Writes w = r.pgStatements().writes();
            System.out.printf("    row versions per message %.2f (table ins/upd(hot)/del: %s); WAL %.0f bytes/msg%n",
                    w.rowVersionsPerMessage(), w.describe(), w.walBytesPerMessage());
        }
        System.out.printf("  %-22s %8d msgs %7.1f s %7.0f msg/s  cpu/msg: consumer %.3f ms, PostgreSQL %.3f ms"
                + " (its database's backends %s; %s statements/msg), broker %.3f ms  SQS %.2f req/msg  rss %.0f MiB%s  %s%n",
                r.name(), r.measuredMessages(), r.seconds(), r.throughput(), r.consumerCpuMs(), r.postgresCpuMs(),
                r.postgresDatabaseCpuMs() == null ? "n/a" : String.format("%.3f", r.postgresDatabaseCpuMs()),
                r.pgStatementsPerMessage() == null ? "no" : String.format("%.2f", r.pgStatementsPerMessage()),
                r.brokerCpuMs(), r.sqsRequestsPerMessage(), r.peakRssMiB(),
                r.latencyP99Ms() == null ? "" : String.format("  p50/p95/p99 %.0f/%.0f/%.0f ms", r.latencyP50Ms(),
                        r.latencyP95Ms(), r.latencyP99Ms()),
                r.verdict().exactlyOnce() ? "exactly once" : "LOST " + r.verdict().lostEvents() + " DOUBLED "
                        + r.verdict().doubled() + " UNEXPLAINED " + r.verdict().unexplained() + " "
                        + r.verdict().examples());
        return r;
    }

    // ------------------------------------------------------------------ plumbing

    private record Queues(String name, String url, String dlqName, String dlqUrl, String eventsUrl) {

        String eventsName() {
            return eventsUrl.substring(eventsUrl.lastIndexOf('/') + 1);
        }
    }

    /** A run's queues, the events queue too: what the relay published there would fill the broker's memory. */
    private void deleteQueues(Queues queues) {
        sqs.deleteQueue(queues.url);
        sqs.deleteQueue(queues.dlqUrl);
        sqs.deleteQueue(queues.eventsUrl);
    }

    private Queues queues() {
        String base = "bench-" + ProcessHandle.current().pid() + "-" + (++queueCounter);
        String url = sqs.createFifo(base + ".fifo", Duration.ofSeconds(30));
        String dlq = sqs.createFifo(base + "-dlq.fifo", Duration.ofSeconds(30));
        String events = sqs.createFifo(Service.eventsQueue(base + ".fifo"), Duration.ofSeconds(30));
        return new Queues(base + ".fifo", url, base + "-dlq.fifo", dlq, events);
    }

    /**
     * The end of a txinbox run ({@link Quiescence}): the stream's events PROCESSED besides {@code alreadyProcessed}
     * (the warm-up's events or the old rows, PROCESSED before the stream).
     */
    private Quiescence quiescence(Queues queues, Oracle oracle, long alreadyProcessed) {
        return new Quiescence(sqs, queues.url, queues.dlqUrl, DB, oracle, alreadyProcessed);
    }

    /** What the service had used when its run reached quiescence: the end of a concurrent window. */
    private final class End {
        private final PgStatements started;
        private final long messages;
        Snapshot snapshot;
        ServiceCounters counters;
        PgStatements.Count statements;

        End(PgStatements started, long messages) {
            this.started = started;
            this.messages = messages;
        }

        void read(Service service) throws IOException, InterruptedException, SQLException {
            snapshot = snapshot(service.pid(), DB);
            counters = service.counters();
            statements = started.end(messages);
        }
    }

    private static void say(String line) {
        System.out.println("  " + line);
    }

    /** A baseline's summary line, as soon as it is in its log (the baseline may still be running). */
    private static JsonNode awaitSummaryLine(Child child, Path log) throws Exception {
        long deadline = System.currentTimeMillis() + 3_600_000;
        while (System.currentTimeMillis() < deadline) {
            boolean alive = child.isAlive();
            List<String> lines = Files.readAllLines(log);
            for (int i = lines.size() - 1; i >= Math.max(0, lines.size() - 20); i--) {
                if (lines.get(i).startsWith("{")) {
                    return JSON.readTree(lines.get(i));
                }
            }
            if (!alive) {
                return awaitSummary(child, log);
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("baseline did not finish within an hour; see " + log);
    }

    private static JsonNode awaitSummary(Child child, Path log) throws Exception {
        if (!child.waitFor(3600)) {
            throw new IllegalStateException("baseline did not finish within an hour; see " + log);
        }
        List<String> lines = Files.readAllLines(log);
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (lines.get(i).startsWith("{")) {
                return JSON.readTree(lines.get(i));
            }
        }
        throw new IllegalStateException("baseline ended without a summary (exit " + child.exitValue() + "); see " + log);
    }

    Map<String, Object> machine() {
        Map<String, Object> machine = new LinkedHashMap<>();
        machine.put("cores", Runtime.getRuntime().availableProcessors());
        try {
            machine.put("cpu", Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(l -> l.startsWith("model name")).findFirst().map(l -> l.replaceAll(".*:\\s*", "")).orElse("?"));
            machine.put("memory", Files.readAllLines(Path.of("/proc/meminfo")).get(0).replaceAll("\\s+", " "));
            machine.put("postgres", Db.queryString(Db.url("postgres"), "select version()"));
            // Settings that move the figures: without autovacuum, every updated table keeps its dead rows for the run.
            machine.put("postgresSettings", Db.queryString(Db.url("postgres"), "select 'autovacuum '"
                    + " || current_setting('autovacuum') || ', fsync ' || current_setting('fsync')"
                    + " || ', synchronous_commit ' || current_setting('synchronous_commit')"
                    + " || ', shared_buffers ' || current_setting('shared_buffers')"));
        } catch (IOException | SQLException e) {
            machine.put("error", e.toString());
        }
        machine.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        machine.put("broker", "ElasticMQ 1.7.1 (standalone, in memory)");
        return machine;
    }

    /** The reports' "Machine:" line. */
    static String describe(Map<String, Object> machine) {
        return machine.get("cores") + " cores, " + machine.get("cpu") + ", " + machine.get("java") + ", "
                + machine.get("broker") + ", PostgreSQL with " + machine.getOrDefault("postgresSettings",
                        "settings unread (" + machine.get("error") + ")");
    }

    @Override
    public void close() {
        sqs.close();
        broker.close();
    }

    static String slug(String name) {
        return name.toLowerCase().replaceAll("[^a-z0-9]+", "-").replaceAll("(^-|-$)", "");
    }
}
