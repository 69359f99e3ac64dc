package dev.txinbox.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.txinbox.harness.PgStatements;
import dev.txinbox.harness.Options;
import dev.txinbox.harness.Report;
import dev.txinbox.harness.StreamSpec;
import dev.txinbox.harness.Verifier;

/** What one bench/run found: its JSON and the markdown tables (one per mode) docs/BENCHMARKS.md quotes. */
final class BenchReport extends Report<BenchSuite> {

    private final StreamSpec spec;
    private final List<RunResult> runs;
    private final Map<String, Object> machine;

    BenchReport(Options<? extends BenchSuite> options, StreamSpec spec, List<RunResult> runs, Map<String, Object> machine) {
        super(options);
        this.spec = spec;
        this.runs = runs;
        this.machine = machine;
    }

    @Override
    protected void document(Map<String, Object> doc) {
        doc.put("size", options.size());
        doc.put("modes", options.suite().modes);
        doc.put("stream", spec);
        doc.put("warmUp", Map.of(BenchSuite.CONCURRENT, options.suite().warmUp, BenchSuite.BACKLOG,
                options.suite().backlogWarmUp, BenchSuite.FRESH, 0));
        if (options.suite().modes.contains(BenchSuite.FRESH)) {
            doc.put("fresh", Map.of("messages", options.suite().freshMessages, "relay", options.suite().freshRelay,
                    "windowStart", Bench.FRESH_WINDOW_START));
        }
        doc.put("cpuGroups", Bench.CPU_GROUPS);
        doc.put("machine", machine);
        doc.put("ratios", ratios());
        doc.put("runs", runs);
        if (!Pods.splits().isEmpty()) {
            doc.put("instanceSplits", Pods.splits()); // --instances: each run's window by instance
        }
    }

    /**
     * Throughput ratios within a mode. The two that answer the targets come first: against the naive
     * consumer on a backlog (both flat out, neither waiting for the producer), and against the drain
     * ceiling while the stream arrives; then the others, and the scale point against the empty inbox.
     */
    private Map<String, Double> ratios() {
        Map<String, Double> ratios = new LinkedHashMap<>();
        ratio(ratios, "txinbox / naive (backlog)", BenchSuite.BACKLOG, "naive");
        ratio(ratios, "txinbox / drain ceiling (concurrent)", BenchSuite.CONCURRENT, "drain");
        ratio(ratios, "txinbox / naive (concurrent)", BenchSuite.CONCURRENT, "naive");
        ratio(ratios, "txinbox / drain ceiling (backlog)", BenchSuite.BACKLOG, "drain");
        txinbox(BenchSuite.BACKLOG).ifPresent(t -> runs.stream()
                .filter(r -> r.mode().equals(BenchSuite.BACKLOG) && r.consumer().equals("txinbox") && r.oldRows() > 0)
                .forEach(s -> ratios.put(String.format("txinbox over %,d old rows / txinbox (backlog)", s.oldRows()),
                        s.throughput() / t.throughput())));
        freshRatios(ratios);
        ratios.putAll(Pods.ratios(runs)); // --instances: N instances against one
        return ratios;
    }

    /**
     * The fresh-pod mode's answers to the issues' targets, per stream size: txinbox with its relay on over the dual
     * write (the same work), and txinbox with it off over plain Camel, in msg/s, in the consumer's and PostgreSQL's
     * CPU per message together, and in PostgreSQL's alone.
     */
    private void freshRatios(Map<String, Double> ratios) {
        List<RunResult> fresh = runs.stream().filter(r -> r.mode().equals(BenchSuite.FRESH)).toList();
        for (RunResult t : fresh) {
            if (!t.consumer().equals("txinbox")) {
                continue;
            }
            String peer = t.name().startsWith("txinbox, relay on") ? BenchSuite.DUAL_WRITE : "camel";
            fresh.stream().filter(c -> c.consumer().equals(peer) && c.messages() == t.messages()).findFirst()
                    .ifPresent(c -> {
                        String over = t.name() + " / " + c.name() + ": ";
                        ratios.put(over + "msg/s", t.throughput() / c.throughput());
                        ratios.put(over + "consumer + PostgreSQL (server) CPU per message",
                                (t.consumerCpuMs() + t.postgresCpuMs()) / (c.consumerCpuMs() + c.postgresCpuMs()));
                        ratios.put(over + "PostgreSQL (server) CPU per message", t.postgresCpuMs() / c.postgresCpuMs());
                        if (t.postgresDatabaseCpuMs() != null && c.postgresDatabaseCpuMs() != null) {
                            ratios.put(over + "consumer + its database's backends CPU per message",
                                    (t.consumerCpuMs() + t.postgresDatabaseCpuMs())
                                            / (c.consumerCpuMs() + c.postgresDatabaseCpuMs()));
                        }
                    });
        }
    }

    private void ratio(Map<String, Double> ratios, String label, String mode, String baseline) {
        Optional<RunResult> other = runs.stream().filter(r -> r.mode().equals(mode) && r.consumer().equals(baseline))
                .findFirst();
        txinbox(mode).ifPresent(t -> other.ifPresent(o -> ratios.put(label, t.throughput() / o.throughput())));
    }

    /** The mode's reference txinbox run: flat out, no old rows. */
    private Optional<RunResult> txinbox(String mode) {
        return runs.stream().filter(r -> r.mode().equals(mode) && r.consumer().equals("txinbox") && r.paceRate() == 0
                && r.oldRows() == 0).findFirst();
    }

    @Override
    protected void markdown(StringBuilder md) {
        md.append("Stream: ").append(spec.describe()).append("  \n");
        md.append("Machine: ").append(Bench.describe(machine)).append("\n");
        for (String mode : options.suite().modes) {
            List<RunResult> inMode = runs.stream().filter(r -> r.mode().equals(mode)).toList();
            if (mode.equals(BenchSuite.BACKLOG)) {
                backlogTable(md, inMode, options.suite().backlogWarmUp);
            } else if (mode.equals(BenchSuite.FRESH)) {
                freshTable(md, inMode);
            } else {
                concurrentTable(md, inMode);
            }
        }
        md.append("\n| ratio (throughput, unless it says otherwise) | value |\n|---|--:|\n");
        Map<String, Double> ratios = ratios();
        ratios.entrySet().stream().filter(e -> !e.getKey().equals("txinbox / naive (concurrent)")
                && !e.getKey().equals("txinbox / drain ceiling (backlog)"))
                .forEach(e -> md.append(String.format("| %s | %.2f |%n", e.getKey(), e.getValue())));
        Pods.markdown(md);
    }

    private static void concurrentTable(StringBuilder md, List<RunResult> runs) {
        md.append("\n**Concurrent** (the stream sent while the consumer runs, after a warm-up; first send to last commit)\n\n");
        md.append("| run | consumer | workers | groups | messages | s | msg/s | consumer CPU ms/msg | of it JIT | consumer by group: workers / event loop / relay / JIT / GC + VM / other | PostgreSQL"
                + " | pg statements/msg | broker | whole path | SQS req/msg | peak RSS MiB | latency p50/p95/p99 ms | oracle |\n");
        md.append("|---|---|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|---|---|\n");
        for (RunResult r : runs) {
            md.append(String.format("| %s%s | %s | %d | %d | %d | %.1f | %.0f | %.3f | %s | %s | %.3f | %s | %.3f | %.3f"
                    + " | %.2f | %.0f | %s | %s |%n",
                    r.name(), r.paceRate() > 0 ? String.format(" (sent at %.0f/s)", r.paceRate()) : "", r.consumer(),
                    r.parallelism(), r.groups(), r.measuredMessages(), r.seconds(), r.throughput(), r.consumerCpuMs(),
                    jit(r), groups(r), r.postgresCpuMs(), statements(r), r.brokerCpuMs(), r.wholePathCpuMs(),
                    r.sqsRequestsPerMessage(), r.peakRssMiB(),
                    r.latencyP99Ms() == null ? "" : String.format("%.0f / %.0f / %.0f", r.latencyP50Ms(), r.latencyP95Ms(),
                            r.latencyP99Ms()),
                    verdict(r)));
        }
        for (RunResult r : runs) {
            if (r.stages() != null && !r.stages().isEmpty()) {
                md.append(String.format("%n**Where the time went** in run \"%s\" (txinbox_stage_seconds over the window, per"
                        + " message; quantiles are the upper bounds of their histogram buckets)%n%n", r.name()));
                md.append("| stage | messages | mean ms | p50 ms | p95 ms | p99 ms |\n|---|--:|--:|--:|--:|--:|\n");
                r.stages().forEach((stage, t) -> md.append(String.format("| %s | %d | %.2f | %.2f | %.2f | %.2f |%n",
                        stage, t.messages(), t.meanMs(), t.p50Ms(), t.p95Ms(), t.p99Ms())));
            }
        }
    }

    /**
     * The fresh-pod mode: one row per consumer and stream size, the consumer's CPU split into its thread groups
     * ({@link Bench#CPU_GROUPS}) beside PostgreSQL's and the broker's.
     */
    private static void freshTable(StringBuilder md, List<RunResult> runs) {
        md.append(String.format("%n**Fresh pod** (the whole stream queued, no warm-up, then a fresh consumer; measured from"
                + " %.0f %% of the messages done to the last, and with the relay on to the last event published; CPU ms"
                + " per message)%n%n", 100 * Bench.FRESH_WINDOW_START));
        md.append("| run | messages measured | s | msg/s | consumer | workers | event loop | relay | JIT | GC + VM thread"
                + " | other | PostgreSQL (server) | its database's backends | pg statements/msg | broker"
                + " | consumer + its backends | SQS req/msg | peak RSS MiB | oracle |\n");
        md.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");
        for (RunResult r : runs) {
            Map<String, Double> g = r.consumerCpuGroupsMs();
            md.append(String.format("| %s | %d of %d | %.1f | %.0f | %.3f | %s | %.3f | %s | %s | %.3f | %s | %.2f | %.0f"
                    + " | %s |%n",
                    r.name(), r.measuredMessages(), r.messages(), r.seconds(), r.throughput(), r.consumerCpuMs(),
                    Bench.CPU_GROUPS.stream().map(k -> String.format("%.3f", g.getOrDefault(k, 0.0)))
                            .collect(java.util.stream.Collectors.joining(" | ")),
                    r.postgresCpuMs(), dbCpu(r), statements(r), r.brokerCpuMs(), r.postgresDatabaseCpuMs() == null ? ""
                            : String.format("%.3f", r.consumerCpuMs() + r.postgresDatabaseCpuMs()),
                    r.sqsRequestsPerMessage(), r.peakRssMiB(), verdict(r)));
        }
        md.append("\nRow versions written per message (per table: inserted / updated (of them HOT) / deleted) and the WAL"
                + " the cluster wrote per message:\n\n");
        for (RunResult r : runs) {
            if (r.pgStatements() != null) {
                PgStatements.Writes w = r.pgStatements().writes();
                md.append(String.format("- %s: %.2f (%s); WAL %.0f bytes%s%n", r.name(), w.rowVersionsPerMessage(),
                        w.describe(), w.walBytesPerMessage(), relaySends(r)));
            }
        }
    }

    /** What the relay published inside the window, per message consumed, and in how many calls; "" with it off. */
    static String relaySends(RunResult r) {
        Map<String, Double> sends = r.sqsCalls() == null ? null : r.sqsCalls().get(Bench.RELAY_SENDS);
        return sends == null ? "" : String.format("; the relay published %.2f events per message in the window, %.1f"
                + " per SendMessageBatch", sends.get("eventsPerMessage"), sends.get("messagesPerRequest"));
    }

    /** The CPU per message of the consumer's database's own backends; none for the drain ceiling. */
    static String dbCpu(RunResult r) {
        return r.postgresDatabaseCpuMs() == null ? "n/a" : String.format("%.3f", r.postgresDatabaseCpuMs());
    }

    /** The consumer's CPU per message by group ({@link Bench#CPU_GROUPS}), as the backlog and concurrent tables show it. */
    static String groups(RunResult r) {
        Map<String, Double> g = r.consumerCpuGroupsMs();
        return g == null ? "" : Bench.CPU_GROUPS.stream().map(k -> String.format("%.3f", g.getOrDefault(k, 0.0)))
                .collect(java.util.stream.Collectors.joining(" / "));
    }

    private static void backlogTable(StringBuilder md, List<RunResult> runs, int warmUp) {
        md.append(String.format("%n**Backlog** (%s; measured from the warm-up's count done to the stream's)%n%n",
                warmUp == 0 ? "the whole stream queued before the consumer starts, no warm-up"
                        : String.format("a warm-up of %,d messages of other orders, then the whole stream, queued before"
                                + " the consumer starts", warmUp)));
        md.append("| run | consumer | workers | groups | old inbox rows | messages measured | s | msg/s"
                + " | consumer CPU ms/msg | of it JIT | consumer by group: workers / event loop / relay / JIT / GC + VM / other | PostgreSQL | pg statements/msg | broker | whole path"
                + " | SQS req/msg | peak RSS MiB | oracle |\n");
        md.append("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|---|\n");
        for (RunResult r : runs) {
            md.append(String.format("| %s | %s | %d | %d | %,d | %d of %d | %.1f | %.0f | %.3f | %s | %s | %.3f | %s | %.3f"
                    + " | %.3f | %.2f | %.0f | %s |%n",
                    r.name(), r.consumer(), r.parallelism(), r.groups(), r.oldRows(), r.measuredMessages(), r.messages(),
                    r.seconds(), r.throughput(), r.consumerCpuMs(), jit(r), groups(r), r.postgresCpuMs(), statements(r),
                    r.brokerCpuMs(), r.wholePathCpuMs(), r.sqsRequestsPerMessage(), r.peakRssMiB(), verdict(r)));
        }
        for (RunResult r : runs) {
            if (r.relayThreadsCpuMs() != null) {
                md.append(String.format("%nThe relay's own cost per event in run \"%s\", whatever the broker's speed:"
                        + " %.3f ms CPU on its threads (%s), of the service's %.3f (JIT %s; by thread: %s);"
                        + " %s PostgreSQL statements, %.3f ms PostgreSQL CPU (the whole server); %.2f SQS calls%n",
                        r.name(), r.relayThreadsCpuMs(), String.join(", ", Bench.RELAY_THREADS), r.consumerCpuMs(),
                        jit(r), r.consumerThreadsCpuMs(), statements(r), r.postgresCpuMs(), r.sqsRequestsPerMessage()));
            }
        }
        for (RunResult r : runs) {
            if (r.consumer().equals("relay") && r.latencyP99Ms() != null) {
                md.append(String.format("%nThe relay paced at %.0f events/s (item 10 of docs/BENCHMARKS.md): record to send"
                        + " p50 / p95 / p99 %.0f / %.0f / %.0f ms (each the upper bound of the histogram bucket it falls in)%n",
                        r.paceRate(), r.latencyP50Ms(), r.latencyP95Ms(), r.latencyP99Ms()));
            }
        }
    }

    /** The JIT compiler threads' CPU per message, where the consumer's threads were read. */
    static String jit(RunResult r) {
        return r.jitCpuMs() == null ? "" : String.format("%.3f", r.jitCpuMs());
    }

    /** PostgreSQL statements per message; none for the drain ceiling, which has no database. */
    static String statements(RunResult r) {
        if (r.pgStatementsPerMessage() == null) {
            return "n/a";
        }
        return String.format("%.2f%s", r.pgStatementsPerMessage(),
                r.pgStatements().deallocated() == 0 ? "" : " (short: entries evicted)");
    }

    static String verdict(RunResult r) {
        if (r.consumer().equals("drain")) {
            return "n/a (no database)";
        }
        Verifier.Verdict v = r.verdict();
        // The dual write's verdict leads with what reached its events queue.
        String published = r.consumer().equals(BenchSuite.DUAL_WRITE) && !v.examples().isEmpty()
                ? "; " + v.examples().get(0) : "";
        if (v.exactlyOnce()) {
            return "exactly once" + published;
        }
        return String.format("lost %d (orders wrong %d), doubled %d, unexplained %d%s", v.lostEvents(), v.wrongOrders(),
                v.doubled(), v.unexplained(), published);
    }
}
