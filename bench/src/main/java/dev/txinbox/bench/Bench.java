package dev.txinbox.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * bench/run: measures txinbox against the drain ceiling and the naive consumer, on the same broker,
 * database and stream, then its scaling with parallelism and groups, and its latency at half its peak.
 * Every run is checked against the oracle; a run that loses or doubles data fails the benchmark.
 */
public final class Bench {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final String DB = "txinbox_bench";
    private static final String NAIVE_DB = "txinbox_bench_naive";
    private static final String WARM_UP = "w";

    private final Options options;
    private final Sqs sqs;
    private final long brokerPid;
    private final Path results;
    private final Path logs;
    private int queueCounter;

    Bench(Options options) throws IOException {
        this.options = options;
        this.sqs = new Sqs(options.endpoint, 16);
        this.brokerPid = options.brokerPid;
        this.results = options.out;
        this.logs = options.out.resolve("logs");
        Files.createDirectories(logs);
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        Bench bench = new Bench(options);
        int failures = bench.runAll();
        System.exit(failures == 0 ? 0 : 1);
    }

    int runAll() throws Exception {
        StreamSpec main = options.spec();
        List<RunResult> runs = new ArrayList<>();
        System.out.printf("txinbox benchmark (%s): %s%n", options.mode, main.describe());
        OrderStream mainStream = OrderStream.generate(main);
        mainStream.oracle().write(results.resolve("oracle-" + options.mode + ".json"));

        RunResult txinbox = txinbox("txinbox", mainStream, main.groups(), options.parallelism, 0, options.jfr);
        runs.add(txinbox);
        if (options.runs.contains("drain")) {
            runs.add(drain("drain ceiling", mainStream, main.groups()));
        }
        if (options.runs.contains("naive")) {
            runs.add(naive("naive (article)", mainStream, main.groups()));
        }
        if (options.runs.contains("latency")) {
            double halfPeak = Math.max(50, Math.floor(txinbox.throughput() / 2 / 50) * 50);
            StreamSpec paced = main.withMessages(
                    Math.max(2_000, (int) Math.min(main.messages(), halfPeak * options.pacedSeconds)));
            runs.add(txinbox("latency at half peak", OrderStream.generate(paced), main.groups(), options.parallelism,
                    halfPeak, false));
        }
        if (options.runs.contains("curves")) {
            StreamSpec curveSpec = main.withMessages(options.curveMessages);
            OrderStream curveStream = OrderStream.generate(curveSpec);
            for (int p : options.parallelismCurve) {
                runs.add(txinbox("parallelism " + p, curveStream, curveSpec.groups(), p, 0, false));
            }
            for (int g : options.groupCurve) {
                StreamSpec spec = curveSpec.withGroups(g);
                runs.add(txinbox("groups " + g, OrderStream.generate(spec), g, options.parallelism, 0, false));
            }
        }

        Report report = new Report(options, main, runs, machine());
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmm"));
        Path json = results.resolve(options.mode + "-" + stamp + ".json");
        Path markdown = results.resolve(options.mode + "-" + stamp + ".md");
        JSON.writeValue(json.toFile(), report.document());
        Files.writeString(markdown, report.markdown());
        System.out.println();
        System.out.println(report.markdown());
        System.out.println("results: " + json + " and " + markdown);
        sqs.close();
        return (int) runs.stream().filter(r -> !r.verdict().exactlyOnce() && !r.consumer().equals("naive")).count();
    }

    // ------------------------------------------------------------------ the three consumers

    RunResult txinbox(String name, OrderStream stream, int groups, int parallelism, double rate, boolean jfr)
            throws Exception {
        Queues queues = queues();
        Db.reset(DB);
        Path log = logs.resolve(slug(name) + ".log");
        List<String> jvm = jfr ? List.of("-XX:StartFlightRecording=filename="
                + results.resolve("profile-" + options.mode + ".jfr") + ",settings=profile") : List.of();
        Map<String, String> env = Service.env(DB, sqs.endpoint(), queues.name, queues.dlqName, options.httpPort,
                Map.of("TXINBOX_CONSUMERS_ORDERS_PARALLELISM", Integer.toString(parallelism)));
        try (Service service = Service.start(options.jar, jvm, env, log)) {
            service.awaitReady(Duration.ofMinutes(2));
            OrderStream warm = warmUpStream(groups);
            warmUp(queues, warm, service.child());
            Snapshot before = snapshot(service.pid());
            Map<String, Double> threadsBefore = Proc.threadCpuMillis(service.pid());
            Producer producer = new Producer(sqs.client(), queues.url, options.producerThreads, rate);
            producer.send(stream);
            awaitQuiescence(stream.oracle(), warm.oracle().events(), queues, service.child());
            Snapshot after = snapshot(service.pid());
            service.saveMetrics(logs.resolve(slug(name) + ".metrics"));
            Map<String, Double> threads = perMessage(threadsBefore, Proc.threadCpuMillis(service.pid()),
                    stream.oracle().messages());
            long lastCommit = Db.queryLong(Db.url(DB), "select (extract(epoch from max(processed_at)) * 1000)::bigint"
                    + " from inbox_messages");
            double[] latency = latency();
            Verifier.Verdict verdict = Verifier.txinbox(Db.url(DB), stream.oracle(), sqs.depth(queues.dlqUrl));
            RunResult result = result(name, "txinbox", parallelism, groups, stream, rate, producer, lastCommit, before,
                    after, service.child().peakRssMiB(), latency, verdict, threads, log);
            sqs.deleteQueue(queues.url);
            sqs.deleteQueue(queues.dlqUrl);
            return print(result);
        }
    }

    RunResult drain(String name, OrderStream stream, int groups) throws Exception {
        int pollers = Math.min(8, groups);
        return baseline(name, "drain", Drain.class, pollers, stream, groups,
                queues -> List.of(queues.url, Integer.toString(pollers)),
                () -> new Verifier.Verdict(0, 0, 0, 0, Map.of(), 0, List.of("no database: nothing to verify")));
    }

    RunResult naive(String name, OrderStream stream, int groups) throws Exception {
        Db.reset(NAIVE_DB);
        return baseline(name, "naive", Naive.class, 1, stream, groups, queues -> List.of(queues.url, Db.url(NAIVE_DB)),
                () -> Verifier.naive(Db.url(NAIVE_DB), stream.oracle()));
    }

    private interface VerdictSource {
        Verifier.Verdict verdict() throws SQLException;
    }

    /**
     * A baseline consumer in its own JVM, warmed up like the service; it exits once it has taken every
     * message and reports its own CPU and last commit, since /proc has nothing left to read by then.
     */
    private RunResult baseline(String name, String consumer, Class<?> mainClass, int parallelism, OrderStream stream,
            int groups, java.util.function.Function<Queues, List<String>> arguments, VerdictSource verdict)
            throws Exception {
        Queues queues = queues();
        Path log = logs.resolve(slug(name) + ".log");
        OrderStream warm = warmUpStream(groups);
        int total = warm.oracle().messages() + stream.oracle().messages();
        List<String> args = new ArrayList<>(List.of(sqs.endpoint()));
        args.addAll(arguments.apply(queues));
        args.add(Integer.toString(total));
        try (Child child = Child.start(Child.java(mainClass.getName(), List.of("-Xmx256m"), args.toArray(String[]::new)),
                Map.of(), log)) {
            warmUp(queues, warm, child);
            Snapshot before = snapshot(child.pid());
            Producer producer = new Producer(sqs.client(), queues.url, options.producerThreads, 0);
            producer.send(stream);
            JsonNode summary = awaitSummary(child, log);
            Snapshot after = snapshot(child.pid()).withConsumer(summary.get("cpuMillis").asDouble());
            RunResult result = result(name, consumer, parallelism, groups, stream, 0, producer,
                    summary.get("lastCommitMillis").asLong(), before, after, child.peakRssMiB(), null,
                    verdict.verdict(), Map.of(), log);
            sqs.deleteQueue(queues.url);
            sqs.deleteQueue(queues.dlqUrl);
            return print(result);
        }
    }

    // ------------------------------------------------------------------ measuring

    private record Snapshot(double consumer, double postgres, double broker, double producer, double machine) {

        /** A baseline reports its own CPU as it exits; /proc has nothing left to read then. */
        Snapshot withConsumer(double cpuMillis) {
            return new Snapshot(cpuMillis, postgres, broker, producer, machine);
        }
    }

    /**
     * Every consumer starts cold (a fresh JVM). A warm-up stream of other orders goes through it first, so
     * that the measurement sees compiled code and warm connections, as a long-running pod does.
     */
    private OrderStream warmUpStream(int groups) {
        StreamSpec main = options.spec();
        return OrderStream.generate(new StreamSpec(options.warmUp, groups, main.duplicateRate(), main.outOfOrderRate(),
                0, main.payloadBytes(), main.seed() + 1), WARM_UP);
    }

    private void warmUp(Queues queues, OrderStream warm, Child consumer) throws Exception {
        new Producer(sqs.client(), queues.url, options.producerThreads, 0).send(warm);
        long deadline = System.currentTimeMillis() + 600_000;
        while (sqs.depth(queues.url) > 0) {
            if (!consumer.isAlive() || System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("warm-up did not drain; see " + consumer.log());
            }
            Thread.sleep(200);
        }
        Thread.sleep(500); // the last commits and deletes settle
    }

    private Snapshot snapshot(long consumerPid) {
        return new Snapshot(Proc.cpuMillis(consumerPid), Proc.postgresCpuMillis(), Proc.cpuMillis(brokerPid),
                Proc.ownCpuMillis(),
                Proc.machineBusyMillis());
    }

    private RunResult result(String name, String consumer, int parallelism, int groups, OrderStream stream,
            double rate, Producer producer, long lastCommit, Snapshot before, Snapshot after, double rss,
            double[] latency, Verifier.Verdict verdict, Map<String, Double> threads, Path log) {
        long messages = stream.oracle().messages();
        double seconds = Math.max(0.001, (lastCommit - producer.firstSendMillis()) / 1000.0);
        double consumerCpu = (after.consumer - before.consumer) / messages;
        double postgresCpu = (after.postgres - before.postgres) / messages;
        double brokerCpu = (after.broker - before.broker) / messages;
        return new RunResult(name, consumer, parallelism, groups, messages, rate, seconds, messages / seconds,
                consumerCpu, postgresCpu, brokerCpu, consumerCpu + postgresCpu + brokerCpu,
                (after.producer - before.producer) / messages, rss,
                latency == null ? null : latency[0], latency == null ? null : latency[1],
                latency == null ? null : latency[2], verdict, threads, results.relativize(log).toString());
    }

    /** CPU ms per message by thread group, largest first, leaving out what rounds to nothing. */
    private static Map<String, Double> perMessage(Map<String, Double> before, Map<String, Double> after, long messages) {
        Map<String, Double> result = new LinkedHashMap<>();
        after.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), (e.getValue() - before.getOrDefault(e.getKey(), 0.0)) / messages))
                .filter(e -> e.getValue() >= 0.005)
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .forEach(e -> result.put(e.getKey(), Math.round(e.getValue() * 1000) / 1000.0));
        return result;
    }

    /** SentTimestamp (kept in the inbox row) to the committing transaction, for processed events. */
    private double[] latency() throws SQLException {
        List<Double> values = new ArrayList<>();
        try (Connection db = DriverManager.getConnection(Db.url(DB), "postgres", "");
                Statement s = db.createStatement();
                ResultSet rs = s.executeQuery("select extract(epoch from processed_at - source_sent_at) * 1000"
                        + " from inbox_messages where status = 'PROCESSED' and source_sent_at is not null"
                        + " and message_id not like 'evt-ord-" + WARM_UP + "%'")) {
            while (rs.next()) {
                values.add(rs.getDouble(1));
            }
        }
        values.sort(null);
        if (values.isEmpty()) {
            return null;
        }
        return new double[] { percentile(values, 50), percentile(values, 95), percentile(values, 99) };
    }

    private static double percentile(List<Double> sorted, double p) {
        int index = (int) Math.ceil(p / 100 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    private RunResult print(RunResult r) {
        if (!r.consumerThreadsCpuMs().isEmpty()) {
            System.out.println("    consumer CPU ms/msg by thread: " + r.consumerThreadsCpuMs());
        }
        System.out.printf("  %-22s %8d msgs %7.1f s %7.0f msg/s  cpu/msg: consumer %.3f ms, whole path %.3f ms"
                + "  rss %.0f MiB%s  %s%n", r.name(), r.messages(), r.seconds(), r.throughput(), r.consumerCpuMs(),
                r.wholePathCpuMs(), r.peakRssMiB(),
                r.latencyP99Ms() == null ? "" : String.format("  p50/p95/p99 %.0f/%.0f/%.0f ms", r.latencyP50Ms(),
                        r.latencyP95Ms(), r.latencyP99Ms()),
                r.verdict().exactlyOnce() ? "exactly once" : "LOST " + r.verdict().lostEvents() + " DOUBLED "
                        + r.verdict().doubled() + " UNEXPLAINED " + r.verdict().unexplained() + " "
                        + r.verdict().examples());
        return r;
    }

    // ------------------------------------------------------------------ plumbing

    private record Queues(String name, String url, String dlqName, String dlqUrl) {
    }

    private Queues queues() {
        String base = "bench-" + ProcessHandle.current().pid() + "-" + (++queueCounter);
        String url = sqs.createFifo(base + ".fifo", Duration.ofSeconds(30));
        String dlq = sqs.createFifo(base + "-dlq.fifo", Duration.ofSeconds(30));
        return new Queues(base + ".fifo", url, base + "-dlq.fifo", dlq);
    }

    /** Waits until the queue is empty and every event is processed (or nothing moves for two minutes). */
    private void awaitQuiescence(Oracle oracle, int warmUpEvents, Queues queues, Child service) throws Exception {
        long lastProgress = System.currentTimeMillis();
        long lastSeen = -1;
        while (true) {
            // Only SQS while messages wait: counting inbox rows costs PostgreSQL CPU the run would be billed for.
            long depth = sqs.depth(queues.url);
            long dlq = sqs.depth(queues.dlqUrl);
            long processed = depth > 0 ? -1 : Db.queryLong(Db.url(DB),
                    "select count(*) from inbox_messages where status = 'PROCESSED'") - warmUpEvents;
            if (depth == 0 && processed >= oracle.events() && dlq >= oracle.poisonMessages()) {
                return;
            }
            long seen = processed * 1_000_000 + dlq * 1000 - depth;
            if (seen != lastSeen) {
                lastSeen = seen;
                lastProgress = System.currentTimeMillis();
            } else if (System.currentTimeMillis() - lastProgress > 120_000) {
                System.out.printf("  no progress for 2 minutes: queue %d, dead letters %d, processed %d of %d%n",
                        depth, dlq, processed, oracle.events());
                return;
            }
            if (!service.isAlive()) {
                throw new IllegalStateException("the service died; see " + service.log());
            }
            Thread.sleep(250);
        }
    }

    private static JsonNode awaitSummary(Child child, Path log) throws Exception {
        if (!child.waitFor(3600)) {
            throw new IllegalStateException("baseline did not finish within an hour; see " + log);
        }
        List<String> lines = Files.readAllLines(log);
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (lines.get(i).startsWith("{")) {
                return new ObjectMapper().readTree(lines.get(i));
            }
        }
        throw new IllegalStateException("baseline ended without a summary (exit " + child.exitValue() + "); see " + log);
    }

    private Map<String, Object> machine() {
        Map<String, Object> machine = new LinkedHashMap<>();
        machine.put("cores", Runtime.getRuntime().availableProcessors());
        try {
            machine.put("cpu", Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(l -> l.startsWith("model name")).findFirst().map(l -> l.replaceAll(".*:\\s*", "")).orElse("?"));
            machine.put("memory", Files.readAllLines(Path.of("/proc/meminfo")).get(0).replaceAll("\\s+", " "));
            machine.put("postgres", Db.queryString(Db.url("postgres"), "select version()"));
        } catch (IOException | SQLException e) {
            machine.put("error", e.toString());
        }
        machine.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        machine.put("broker", "ElasticMQ 1.7.1 (standalone, in memory)");
        return machine;
    }

    private static String slug(String name) {
        return name.toLowerCase().replaceAll("[^a-z0-9]+", "-").replaceAll("(^-|-$)", "");
    }
}
