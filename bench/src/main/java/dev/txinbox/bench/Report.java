package dev.txinbox.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The results of one bench/run as JSON and as the markdown table docs/BENCHMARKS.md quotes. */
final class Report {

    private final Options options;
    private final StreamSpec spec;
    private final List<RunResult> runs;
    private final Map<String, Object> machine;

    Report(Options options, StreamSpec spec, List<RunResult> runs, Map<String, Object> machine) {
        this.options = options;
        this.spec = spec;
        this.runs = runs;
        this.machine = machine;
    }

    Map<String, Object> document() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("command", options.command);
        doc.put("mode", options.mode);
        doc.put("stream", spec);
        doc.put("machine", machine);
        doc.put("ratios", ratios());
        doc.put("runs", runs);
        return doc;
    }

    private Map<String, Double> ratios() {
        Map<String, Double> ratios = new LinkedHashMap<>();
        RunResult txinbox = runs.get(0);
        find("drain").ifPresent(d -> ratios.put("txinbox/drain", txinbox.throughput() / d.throughput()));
        find("naive").ifPresent(n -> ratios.put("txinbox/naive", txinbox.throughput() / n.throughput()));
        return ratios;
    }

    private Optional<RunResult> find(String consumer) {
        return runs.stream().filter(r -> r.consumer().equals(consumer)).findFirst();
    }

    String markdown() {
        StringBuilder md = new StringBuilder();
        md.append("Command: `").append(options.command).append("`  \n");
        md.append("Stream: ").append(spec.describe()).append("  \n");
        md.append("Machine: ").append(machine.get("cores")).append(" cores, ").append(machine.get("cpu")).append(", ")
                .append(machine.get("java")).append(", ").append(machine.get("broker")).append("\n\n");
        md.append("| run | consumer | workers | groups | messages | s | msg/s | consumer CPU ms/msg | PostgreSQL | broker"
                + " | whole path | peak RSS MiB | latency p50/p95/p99 ms | oracle |\n");
        md.append("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|\n");
        for (RunResult r : runs) {
            md.append(String.format("| %s%s | %s | %d | %d | %d | %.1f | %.0f | %.3f | %.3f | %.3f | %.3f | %.0f | %s | %s |%n",
                    r.name(), r.paceRate() > 0 ? String.format(" (sent at %.0f/s)", r.paceRate()) : "", r.consumer(),
                    r.parallelism(), r.groups(), r.messages(), r.seconds(), r.throughput(), r.consumerCpuMs(),
                    r.postgresCpuMs(), r.brokerCpuMs(), r.wholePathCpuMs(), r.peakRssMiB(),
                    r.latencyP99Ms() == null ? "" : String.format("%.0f / %.0f / %.0f", r.latencyP50Ms(), r.latencyP95Ms(),
                            r.latencyP99Ms()),
                    verdict(r)));
        }
        md.append("\n| ratio | value |\n|---|--:|\n");
        ratios().forEach((k, v) -> md.append(String.format("| %s | %.2f |%n", k, v)));
        return md.toString();
    }

    private static String verdict(RunResult r) {
        if (r.consumer().equals("drain")) {
            return "n/a (no database)";
        }
        Verifier.Verdict v = r.verdict();
        if (v.exactlyOnce()) {
            return "exactly once";
        }
        return String.format("lost %d (orders wrong %d), doubled %d, unexplained %d", v.lostEvents(), v.wrongOrders(),
                v.doubled(), v.unexplained());
    }
}
