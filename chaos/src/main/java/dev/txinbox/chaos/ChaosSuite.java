package dev.txinbox.chaos;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import dev.txinbox.harness.Options;

/**
 * chaos/run's own options (docs/RELIABILITY.md); the ones it shares with bench/run are {@link Options}'.
 * {@code --quick} shrinks the kill scenario, and the other scenarios' streams and groups.
 */
public final class ChaosSuite implements Options.Suite {

    /** Every scenario, in the order they run. */
    static final List<String> SCENARIOS = List.of("kill", "postgres", "broker", "two", "slow", "sigterm");

    /** Scenarios to run; empty runs all. */
    List<String> scenarios = List.of();
    int killMessages = 50_000;
    int kills = 12;
    int rate = 200;
    int port = 9335;
    String elasticmqClasspath = "";
    /** The broker's store and configuration. */
    final Path work = Path.of("chaos/target");

    @Override
    public String script() {
        return "chaos/run";
    }

    @Override
    public String docs() {
        return "docs/RELIABILITY.md";
    }

    @Override
    public Options.Defaults defaults(boolean quick) {
        return new Options.Defaults(quick ? 2_500 : 20_000, quick ? 200 : 500, 0.002, 7, 18090, Path.of("chaos/results"));
    }

    @Override
    public void quick() {
        killMessages = 5_000;
        kills = 4;
    }

    @Override
    public Set<String> fromScript() {
        return Set.of("--elasticmq-classpath");
    }

    @Override
    public List<Options.Option> options() {
        return List.of(
                new Options.Option("--scenarios", () -> scenarios.isEmpty() ? SCENARIOS : scenarios,
                        v -> scenarios = scenarios(v)),
                new Options.Option("--kill-messages", () -> killMessages, v -> killMessages = Integer.parseInt(v)),
                new Options.Option("--kills", () -> kills, v -> kills = Integer.parseInt(v)),
                new Options.Option("--rate", () -> rate, v -> rate = Integer.parseInt(v)),
                new Options.Option("--port", () -> port, v -> port = Integer.parseInt(v)),
                new Options.Option("--elasticmq-classpath", () -> elasticmqClasspath, v -> elasticmqClasspath = v));
    }

    @Override
    public void complete(Options<?> options) {
        if (elasticmqClasspath.isBlank()) {
            throw new IllegalArgumentException("--elasticmq-classpath is required (chaos/run passes it)");
        }
    }

    private static List<String> scenarios(String csv) {
        List<String> chosen = Options.list(csv);
        if (chosen.isEmpty() || !SCENARIOS.containsAll(chosen)) {
            throw new IllegalArgumentException("--scenarios takes some of " + String.join(",", SCENARIOS) + ", got '"
                    + csv + "'");
        }
        return chosen;
    }
}
