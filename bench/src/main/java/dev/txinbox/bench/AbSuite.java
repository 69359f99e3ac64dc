package dev.txinbox.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.txinbox.harness.Options;

/**
 * bench/ab's command line (docs/BENCHMARKS.md): the two builds to compare, then bench/run's options for the
 * one run it repeats (the backlog mode of txinbox, no old rows; or, with {@code --run=relay}, the outbox relay's
 * backlog run) and {@code --rounds}. The script builds the
 * two jars and passes them, {@code --jar} A's and {@code --jar-b} B's, with the commits they were built from
 * (empty for a quarkus-app directory given as it is). {@code --env-a} and {@code --env-b} add settings to each
 * side's environment ({@code K=V,K=V}); {@code --env-c} adds a third side, C: B's build with its own settings, so
 * that one build can be compared under three settings (tracing off, sampled, every message).
 */
public final class AbSuite extends BenchSuite {

    /** bench/run's options that choose other runs or belong to the concurrent mode: bench/ab has one run. */
    static final Set<String> NOT_TAKEN = Set.of("--mode", "--runs", "--old-rows", "--warm-up", "--curve-messages",
            "--paced-seconds", "--parallelism-curve", "--group-curve", "--fresh-messages", "--fresh-relay",
            "--fresh-broker", "--instances");
    static final String JAR_B = "--jar-b";

    int rounds = 3;
    /** The run repeated: {@code txinbox} (the inbox's backlog run) or {@code relay} (the relay's). */
    String run = "txinbox";
    Path jarB;
    String commitA = "";
    String commitB = "";
    Map<String, String> envA = Map.of();
    Map<String, String> envB = Map.of();
    /** C's settings; null: no side C. */
    Map<String, String> envC;
    /** The side whose runs have a {@link dev.txinbox.harness.BareSender} beside them: A, B, C or none. */
    String bareSendsSide = "none";

    @Override
    public String script() {
        return "bench/ab";
    }

    @Override
    public List<String> arguments() {
        return List.of("revA", "revB");
    }

    @Override
    public Set<String> flags() {
        return Set.of();
    }

    @Override
    public Set<String> fromScript() {
        return Set.of("--broker-pid", "--endpoint", JAR_B, "--commit-a", "--commit-b");
    }

    @Override
    public List<Options.Option> options() {
        List<Options.Option> options = new ArrayList<>(super.options().stream()
                .filter(o -> !NOT_TAKEN.contains(o.name())).toList());
        options.add(new Options.Option("--rounds", () -> rounds, v -> rounds = Integer.parseInt(v)));
        options.add(new Options.Option("--run", () -> run, v -> run = v));
        options.add(new Options.Option(JAR_B, () -> jarB == null ? "" : jarB, v -> jarB = Path.of(v)));
        options.add(new Options.Option("--commit-a", () -> commitA, v -> commitA = v));
        options.add(new Options.Option("--commit-b", () -> commitB, v -> commitB = v));
        options.add(new Options.Option("--env-a", () -> show(envA), v -> envA = settings("--env-a", v)));
        options.add(new Options.Option("--env-b", () -> show(envB), v -> envB = settings("--env-b", v)));
        options.add(new Options.Option("--env-c", () -> envC == null ? "(no side C)" : show(envC),
                v -> envC = settings("--env-c", v)));
        options.add(new Options.Option(BARE_SENDS, () -> bareSendsSide, v -> bareSendsSide = v));
        return options;
    }

    /** {@code K=V,K=V} as an ordered map; a key must look like an environment variable's name. */
    static Map<String, String> settings(String option, String text) {
        Map<String, String> settings = new LinkedHashMap<>();
        for (String pair : text.split(",")) {
            if (pair.isBlank()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String key = eq < 0 ? "" : pair.substring(0, eq).trim();
            if (!key.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw new IllegalArgumentException(option + " takes NAME=value pairs separated by commas, got '"
                        + pair + "'");
            }
            settings.put(key, pair.substring(eq + 1).trim());
        }
        return settings;
    }

    static String show(Map<String, String> settings) {
        return settings.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .reduce((x, y) -> x + "," + y).orElse("");
    }

    @Override
    public void complete(Options<?> options) {
        super.complete(options);
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds takes 1 or more, got " + rounds);
        }
        if (!run.equals("txinbox") && !run.equals("relay")) {
            throw new IllegalArgumentException("--run takes txinbox or relay, got '" + run + "'");
        }
        if (!Set.of("none", "A", "B", "C").contains(bareSendsSide)) {
            throw new IllegalArgumentException(BARE_SENDS + " takes A, B, C or none, got '" + bareSendsSide + "'");
        }
        if (bareSendsSide.equals("C") && envC == null) {
            throw new IllegalArgumentException(BARE_SENDS + "=C needs a side C (--env-c)");
        }
        if (!bareSendsSide.equals("none") && run.equals("relay")) {
            throw new IllegalArgumentException(BARE_SENDS + " goes beside the inbox's run, not the relay's");
        }
        if (jarB == null) {
            throw new IllegalArgumentException(JAR_B + " is required (" + script() + " passes it)");
        }
        modes = List.of(BACKLOG);
        runs = List.of(run);
        oldRows = 0;
    }
}
