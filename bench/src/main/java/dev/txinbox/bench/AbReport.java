package dev.txinbox.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

import dev.txinbox.harness.Options;
import dev.txinbox.harness.Report;
import dev.txinbox.harness.StreamSpec;

/**
 * What one bench/ab found: every run, the medians per side and each side's over A's, as {@code ab-<time>.json} and
 * {@code .md}.
 */
final class AbReport extends Report<AbSuite> {

    /** One column of the tables: how a run's figure is named, shown and read. */
    private record Figure(String column, String format, Function<RunResult, Double> value) {
    }

    private static final List<Figure> FIGURES = List.of(
            new Figure("msg/s", "%.0f", RunResult::throughput),
            new Figure("service CPU ms/msg", "%.3f", RunResult::consumerCpuMs),
            new Figure("of it JIT", "%.3f", RunResult::jitCpuMs),
            new Figure("PostgreSQL CPU ms/msg", "%.3f", RunResult::postgresCpuMs),
            new Figure("pg statements/msg", "%.2f", RunResult::pgStatementsPerMessage),
            new Figure("broker CPU ms/msg", "%.3f", RunResult::brokerCpuMs),
            new Figure("SQS req/msg", "%.2f", RunResult::sqsRequestsPerMessage),
            new Figure("peak RSS MiB", "%.0f", RunResult::peakRssMiB));

    private final StreamSpec spec;
    private final List<Ab.Build> builds;
    private final RunResult warmUp;
    private final List<Ab.Row> rows;
    private final Map<String, Object> machine;

    AbReport(Options<AbSuite> options, StreamSpec spec, List<Ab.Build> builds, RunResult warmUp, List<Ab.Row> rows,
            Map<String, Object> machine) {
        super(options);
        this.spec = spec;
        this.builds = builds;
        this.warmUp = warmUp;
        this.rows = rows;
        this.machine = machine;
    }

    @Override
    protected String name() {
        return "ab";
    }

    @Override
    protected void document(Map<String, Object> doc) {
        doc.put("builds", builds);
        doc.put("stream", spec);
        doc.put("backlogWarmUp", options.suite().backlogWarmUp);
        doc.put("rounds", options.suite().rounds);
        doc.put("machine", machine);
        Map<String, Map<String, Double>> medians = new LinkedHashMap<>();
        builds.forEach(b -> medians.put(b.label(), medians(b.label())));
        doc.put("medians", medians);
        Map<String, Map<String, Double>> ratios = new LinkedHashMap<>();
        builds.subList(1, builds.size()).forEach(b -> ratios.put(b.label() + " / A", ratios(b.label())));
        doc.put("ratiosToA", ratios);
        doc.put("warmUpRun", warmUp);
        doc.put("runs", rows);
    }

    @Override
    protected void markdown(StringBuilder md) {
        for (Ab.Build b : builds) {
            md.append(b.label()).append(": `").append(b.revision()).append('`')
                    .append(b.commit().isEmpty() ? "" : " (" + b.commit() + ")").append(", ").append(b.jar())
                    .append(b.extras()).append("  \n");
        }
        md.append("Stream: ").append(spec.describe()).append("; backlog mode, ")
                .append(String.format("%,d", options.suite().backlogWarmUp))
                .append(" warm-up messages of other orders queued ahead of it, measured from their count done to the"
                        + " stream's; one warm-up run of A first, discarded, then the sides taking turns at going first  \n");
        md.append("Machine: ").append(Bench.describe(machine)).append("\n\n");
        md.append("| round | build");
        FIGURES.forEach(f -> md.append(" | ").append(f.column()));
        md.append(" | oracle |\n|---|---").append("|--:".repeat(FIGURES.size())).append("|---|\n");
        row(md, "warm-up", "A (discarded)", warmUp);
        rows.forEach(r -> row(md, Integer.toString(r.round()), r.build(), r.result()));

        md.append("\n| median of the rounds");
        FIGURES.forEach(f -> md.append(" | ").append(f.column()));
        md.append(" |\n|---").append("|--:".repeat(FIGURES.size())).append("|\n");
        for (Ab.Build b : builds) {
            figures(md, b.label(), medians(b.label()), "");
        }
        for (Ab.Build b : builds.subList(1, builds.size())) {
            figures(md, b.label() + " / A", ratios(b.label()), "%.2f");
        }
    }

    private static void row(StringBuilder md, String round, String build, RunResult r) {
        md.append("| ").append(round).append(" | ").append(build);
        FIGURES.forEach(f -> md.append(" | ").append(show(f.format(), f.value().apply(r))));
        md.append(" | ").append(BenchReport.verdict(r)).append(" |\n");
    }

    private static void figures(StringBuilder md, String label, Map<String, Double> values, String format) {
        md.append("| ").append(label);
        FIGURES.forEach(f -> md.append(" | ").append(show(format.isEmpty() ? f.format() : format,
                values.get(f.column()))));
        md.append(" |\n");
    }

    private static String show(String format, Double value) {
        return value == null ? "" : String.format(format, value);
    }

    /** Each figure's median over the build's rounds; absent where no run had it. */
    private Map<String, Double> medians(String build) {
        Map<String, Double> medians = new LinkedHashMap<>();
        for (Figure f : FIGURES) {
            List<Double> values = rows.stream().filter(r -> r.build().equals(build))
                    .map(r -> f.value().apply(r.result())).filter(Objects::nonNull).sorted().toList();
            if (!values.isEmpty()) {
                int n = values.size();
                medians.put(f.column(), n % 2 == 1 ? values.get(n / 2) : (values.get(n / 2 - 1) + values.get(n / 2)) / 2);
            }
        }
        return medians;
    }

    /** A side's median over A's, figure by figure. */
    private Map<String, Double> ratios(String side) {
        Map<String, Double> a = medians(builds.get(0).label());
        Map<String, Double> b = medians(side);
        Map<String, Double> ratios = new LinkedHashMap<>();
        for (Figure f : FIGURES) {
            Double x = a.get(f.column());
            Double y = b.get(f.column());
            if (x != null && y != null && x != 0) {
                ratios.put(f.column(), y / x);
            }
        }
        return ratios;
    }
}
