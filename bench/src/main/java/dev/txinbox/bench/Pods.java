package dev.txinbox.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.txinbox.harness.Proc;
import dev.txinbox.harness.Service;
import dev.txinbox.harness.ServiceCounters;

/**
 * N instances of the service on one database and one queue, as N pods of one deployment
 * ({@code bench/run --instances}): the same jar, flags and settings each, HTTP ports {@code --http-port},
 * {@code +1}, ...; started together, so that they meet the backlog together as pods do after a deploy. Their
 * counters and CPU are summed: the run measures the deployment, and how the work split between them is kept
 * beside it ({@link #split}). One instance is the run it always was.
 */
final class Pods implements AutoCloseable {

    /** How each --instances run's window split between its instances, by run name (the report's JSON). */
    private static final Map<String, Map<String, Object>> SPLITS = new LinkedHashMap<>();

    private final List<Service> services;
    /** Each instance's count of done messages at the last {@link #counters} read. */
    private long[] done;

    private Pods(List<Service> services) {
        this.services = services;
        this.done = new long[services.size()];
    }

    /** One service already started (the runs of one instance), for the polling that takes Pods. */
    static Pods of(Service service) {
        return new Pods(List.of(service));
    }

    /**
     * Starts {@code n} instances with {@code env}, the i-th (from 0) on port {@code httpPort + i} and logging to
     * {@code log}, or beside it with {@code -<i + 1>} for the others.
     */
    static Pods start(int n, Path jar, List<String> jvmOptions, Map<String, String> env, int httpPort, Path log)
            throws IOException, InterruptedException {
        List<Service> started = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                Map<String, String> own = new HashMap<>(env);
                own.put("QUARKUS_HTTP_PORT", Integer.toString(httpPort + i));
                // The flight recording (if any) is the first instance's: two JVMs would write the same file.
                started.add(Service.start(jar, i == 0 ? jvmOptions : List.of(), own, i == 0 ? log : sibling(log, i + 1)));
            }
        } catch (IOException | RuntimeException e) {
            for (Service s : started) {
                s.close();
            }
            throw e;
        }
        return new Pods(List.copyOf(started));
    }

    /**
     * One value of {@code --instances}: {@code N} instances with {@code --parallelism} workers each
     * ({@code parallelism} 0), or {@code NxP}, N instances of P workers each.
     */
    record Count(int instances, int parallelism) {

        static final Count ONE = new Count(1, 0);

        static List<Count> parse(String csv) {
            List<Count> counts = new ArrayList<>();
            for (String v : csv.split(",")) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\s*([0-9]+)(?:x([0-9]+))?\\s*").matcher(v);
                if (!m.matches() || Integer.parseInt(m.group(1)) < 1
                        || (m.group(2) != null && Integer.parseInt(m.group(2)) < 1)) {
                    throw new IllegalArgumentException("--instances takes counts N or NxP (N instances of P workers"
                            + " each), 1 or more, comma-separated, got '" + csv + "'");
                }
                counts.add(new Count(Integer.parseInt(m.group(1)), m.group(2) == null ? 0 : Integer.parseInt(m.group(2))));
            }
            return List.copyOf(counts);
        }

        static String describe(List<Count> counts) {
            return String.join(",", counts.stream().map(Count::toString).toList());
        }

        /** The run's name: "txinbox" for one instance at --parallelism, as it always was. */
        String name(String name) {
            return instances == 1 && parallelism == 0 ? name
                    : name + " ×" + instances + (instances == 1 ? " instance" : " instances")
                            + (parallelism == 0 ? "" : ", " + parallelism + " workers each");
        }

        @Override
        public String toString() {
            return instances + (parallelism == 0 ? "" : "x" + parallelism);
        }
    }

    static Path sibling(Path log, int number) {
        String file = log.getFileName().toString();
        int dot = file.lastIndexOf('.');
        return log.resolveSibling(dot < 0 ? file + "-" + number : file.substring(0, dot) + "-" + number
                + file.substring(dot));
    }

    List<Service> services() {
        return services;
    }

    int size() {
        return services.size();
    }

    Service first() {
        return services.get(0);
    }

    boolean isAlive() {
        return services.stream().allMatch(Service::isAlive);
    }

    /** The dead instance's log, or the first's. */
    Path log() {
        return services.stream().filter(s -> !s.isAlive()).findFirst().orElse(first()).log();
    }

    List<Long> pids() {
        return services.stream().map(Service::pid).toList();
    }

    /** The instances' counters, summed (each one's count of done messages kept for {@link #doneEach}). */
    ServiceCounters counters() throws IOException, InterruptedException {
        if (services.size() == 1) {
            ServiceCounters c = first().counters();
            done = new long[] { c.done() };
            return c;
        }
        long[] each = new long[services.size()];
        long total = 0;
        long published = 0;
        long sends = 0;
        Map<String, Long> requests = new TreeMap<>();
        Map<String, Long> requestMessages = new TreeMap<>();
        for (int i = 0; i < services.size(); i++) {
            ServiceCounters c = services.get(i).counters();
            each[i] = c.done();
            total += c.done();
            published += c.published();
            sends += c.sends();
            c.requests().forEach((k, v) -> requests.merge(k, v, Long::sum));
            c.requestMessages().forEach((k, v) -> requestMessages.merge(k, v, Long::sum));
        }
        done = each;
        return new ServiceCounters(total, requests, requestMessages, published, sends);
    }

    /** Each instance's done messages at the last {@link #counters} read. */
    long[] doneEach() {
        return done.clone();
    }

    /** Each instance's process CPU now, ms. */
    double[] cpuEach() {
        return services.stream().mapToDouble(s -> Proc.cpuMillis(s.pid())).toArray();
    }

    /** The instances' peak RSS, summed: what the deployment held. */
    double peakRssMiB() {
        return services.stream().mapToDouble(s -> s.child().peakRssMiB()).sum();
    }

    /** Each instance's counters into {@code file}, the others' beside it as {@link #sibling}. */
    void saveMetrics(Path file) {
        for (int i = 0; i < services.size(); i++) {
            services.get(i).saveMetrics(i == 0 ? file : sibling(file, i + 1));
        }
    }

    /**
     * Records and prints how the window of run {@code name} split between the instances: messages and CPU each,
     * from the done counts and CPU read as it opened and as it closed.
     */
    void split(String name, long[] doneFrom, long[] doneTo, double[] cpuFrom, double[] cpuTo) {
        List<Long> messages = new ArrayList<>();
        List<Double> cpuMs = new ArrayList<>();
        List<Double> cpuPerMessage = new ArrayList<>();
        for (int i = 0; i < services.size(); i++) {
            long m = doneTo[i] - doneFrom[i];
            double cpu = cpuTo[i] - cpuFrom[i];
            messages.add(m);
            cpuMs.add((double) Math.round(cpu));
            cpuPerMessage.add(Math.round(cpu / Math.max(1, m) * 1000) / 1000.0);
        }
        Map<String, Object> split = new LinkedHashMap<>();
        split.put("instances", services.size());
        split.put("messages", messages);
        split.put("cpuMs", cpuMs);
        split.put("cpuMsPerMessage", cpuPerMessage);
        synchronized (SPLITS) {
            SPLITS.put(name, split);
        }
        System.out.printf("    by instance in the window: messages %s, CPU ms %s, CPU ms/msg %s%n", messages, cpuMs,
                cpuPerMessage);
    }

    /** Every multi-instance run's split so far, by run name. */
    static Map<String, Map<String, Object>> splits() {
        synchronized (SPLITS) {
            return new LinkedHashMap<>(SPLITS);
        }
    }

    /** The splits as the report's lines, after its ratios (nothing without --instances). */
    static void markdown(StringBuilder md) {
        splits().forEach((name, split) -> md.append(String.format("%nBy instance in run \"%s\" (--instances): messages %s,"
                + " service CPU ms %s, CPU ms/msg %s%n", name, split.get("messages"), split.get("cpuMs"),
                split.get("cpuMsPerMessage"))));
    }

    /**
     * For the report: each multi-instance backlog run of txinbox against the one-instance run, msg/s and the costs
     * per message, as "×N instances / one" ratios (empty without both).
     */
    static Map<String, Double> ratios(List<RunResult> runs) {
        Map<String, Double> ratios = new LinkedHashMap<>();
        RunResult one = runs.stream().filter(r -> r.mode().equals(BenchSuite.BACKLOG) && r.name().equals("txinbox"))
                .findFirst().orElse(null);
        if (one == null) {
            return ratios;
        }
        for (RunResult r : runs) {
            if (r.mode().equals(BenchSuite.BACKLOG) && r.name().startsWith("txinbox ×")) {
                String label = r.name().substring("txinbox ".length()) + " / one (backlog)";
                ratios.put("msg/s, " + label, r.throughput() / one.throughput());
                ratios.put("service CPU/msg, " + label, r.consumerCpuMs() / one.consumerCpuMs());
                ratios.put("PostgreSQL CPU/msg, " + label, r.postgresCpuMs() / one.postgresCpuMs());
                if (r.pgStatementsPerMessage() != null && one.pgStatementsPerMessage() != null) {
                    ratios.put("PostgreSQL statements/msg, " + label,
                            r.pgStatementsPerMessage() / one.pgStatementsPerMessage());
                }
                ratios.put("SQS requests/msg, " + label, r.sqsRequestsPerMessage() / one.sqsRequestsPerMessage());
            }
        }
        return ratios;
    }

    @Override
    public void close() throws InterruptedException {
        for (Service s : services) {
            s.close();
        }
    }
}
