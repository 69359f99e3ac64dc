package dev.txinbox.chaos;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import dev.txinbox.harness.CommandLine;
import dev.txinbox.harness.StreamSpec;

/** Command-line options of chaos/run (see docs/RELIABILITY.md); {@code --quick} shrinks every scenario. */
final class ChaosOptions {

    String mode = "full";
    int killMessages = 50_000;
    int kills = 12;
    int messages = 20_000;
    int groups = 500;
    int rate = 200;
    double duplicates = 0.05;
    double outOfOrder = 0.05;
    double poison = 0.002;
    long seed = 7;
    int port = 9335;
    int httpPort = 18090;
    Path jar = Path.of("target/quarkus-app/quarkus-run.jar");
    String elasticmqClasspath = "";
    Path out = Path.of("chaos/results");
    Path work = Path.of("chaos/target");
    List<String> scenarios = List.of();
    String command;

    /** {@code salt} gives every scenario its own stream (and, with it, its own order and event ids). */
    StreamSpec spec(int count, int salt) {
        return new StreamSpec(count, groups, duplicates, outOfOrder, poison, 0, seed * 31 + salt);
    }

    static ChaosOptions parse(String[] args) {
        ChaosOptions o = new ChaosOptions();
        CommandLine line = CommandLine.parse("chaos/run", args, Set.of("--quick"),
                Set.of("--jar", "--elasticmq-classpath"));
        o.command = line.display();
        if (line.flags().contains("--quick")) {
            o.mode = "quick";
            o.killMessages = 5_000;
            o.kills = 4;
            o.messages = 2_500;
            o.groups = 200;
        }
        line.options().forEach((name, v) -> {
            switch (name) {
                case "--scenarios" -> o.scenarios = Arrays.asList(v.split(","));
                case "--kill-messages" -> o.killMessages = Integer.parseInt(v);
                case "--kills" -> o.kills = Integer.parseInt(v);
                case "--messages" -> o.messages = Integer.parseInt(v);
                case "--groups" -> o.groups = Integer.parseInt(v);
                case "--rate" -> o.rate = Integer.parseInt(v);
                case "--duplicates" -> o.duplicates = Double.parseDouble(v);
                case "--out-of-order" -> o.outOfOrder = Double.parseDouble(v);
                case "--poison" -> o.poison = Double.parseDouble(v);
                case "--seed" -> o.seed = Long.parseLong(v);
                case "--port" -> o.port = Integer.parseInt(v);
                case "--http-port" -> o.httpPort = Integer.parseInt(v);
                case "--jar" -> o.jar = Path.of(v);
                case "--elasticmq-classpath" -> o.elasticmqClasspath = v;
                case "--out" -> o.out = Path.of(v);
                default -> throw new IllegalArgumentException("unknown option " + name + " (see docs/RELIABILITY.md)");
            }
        });
        if (o.elasticmqClasspath.isBlank()) {
            throw new IllegalArgumentException("--elasticmq-classpath is required (chaos/run passes it)");
        }
        return o;
    }
}
