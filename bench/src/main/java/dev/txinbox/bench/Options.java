package dev.txinbox.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import dev.txinbox.harness.CommandLine;
import dev.txinbox.harness.StreamSpec;

/** Command-line options of bench/run (see docs/BENCHMARKS.md); {@code --quick} shrinks every run. */
final class Options {

    static final String CONCURRENT = "concurrent";
    static final String BACKLOG = "backlog";

    /** "full" or "quick": names the result files. */
    String size = "full";
    /** Measuring modes, in order; see {@link #parse} for the default. */
    List<String> modes;
    int messages = 100_000;
    int groups = 1000;
    int curveMessages = 20_000;
    int pacedSeconds = 30;
    int warmUp = 10_000;
    int parallelism = 4; // the service's default
    List<Integer> parallelismCurve = List.of(1, 2, 4, 8);
    List<Integer> groupCurve = List.of(1, 10, 1000);
    double duplicates = 0.05;
    double outOfOrder = 0.05;
    double poison = 0.001;
    int payloadBytes = 0;
    long seed = 42;
    int producerThreads = 4;
    int httpPort = 18080;
    /** Old PROCESSED inbox rows under the backlog scale point; 0 leaves it out. */
    long oldRows = 10_000_000;
    String endpoint = "http://127.0.0.1:9334";
    long brokerPid;
    Path jar = Path.of("target/quarkus-app/quarkus-run.jar");
    Path out = Path.of("bench/results");
    boolean jfr;
    List<String> runs = List.of("txinbox", "drain", "naive", "latency", "curves", "scale");
    String command;

    StreamSpec spec() {
        return new StreamSpec(messages, groups, duplicates, outOfOrder, poison, payloadBytes, seed);
    }

    static Options parse(String[] args) {
        Options o = new Options();
        CommandLine line = CommandLine.parse("bench/run", args, Set.of("--quick", "--jfr"),
                Set.of("--broker-pid", "--jar", "--endpoint"));
        o.command = line.display();
        o.jfr = line.flags().contains("--jfr");
        if (line.flags().contains("--quick")) {
            o.size = "quick";
            o.messages = 10_000;
            o.curveMessages = 3_000;
            o.pacedSeconds = 10;
            o.warmUp = 3_000;
            o.oldRows = 200_000; // exercises the scale point's path; too small to say anything about scale
        }
        line.options().forEach((name, v) -> {
            switch (name) {
                case "--messages" -> o.messages = Integer.parseInt(v);
                case "--groups" -> o.groups = Integer.parseInt(v);
                case "--curve-messages" -> o.curveMessages = Integer.parseInt(v);
                case "--runs" -> o.runs = Arrays.asList(v.split(","));
                case "--mode" -> o.modes = modes(v);
                case "--old-rows" -> o.oldRows = Long.parseLong(v);
                case "--warm-up" -> o.warmUp = Integer.parseInt(v);
                case "--paced-seconds" -> o.pacedSeconds = Integer.parseInt(v);
                case "--parallelism" -> o.parallelism = Integer.parseInt(v);
                case "--parallelism-curve" -> o.parallelismCurve = ints(v);
                case "--group-curve" -> o.groupCurve = ints(v);
                case "--duplicates" -> o.duplicates = Double.parseDouble(v);
                case "--out-of-order" -> o.outOfOrder = Double.parseDouble(v);
                case "--poison" -> o.poison = Double.parseDouble(v);
                case "--payload-bytes" -> o.payloadBytes = Integer.parseInt(v);
                case "--seed" -> o.seed = Long.parseLong(v);
                case "--producer-threads" -> o.producerThreads = Integer.parseInt(v);
                case "--http-port" -> o.httpPort = Integer.parseInt(v);
                case "--endpoint" -> o.endpoint = v;
                case "--broker-pid" -> o.brokerPid = Long.parseLong(v);
                case "--jar" -> o.jar = Path.of(v);
                case "--out" -> o.out = Path.of(v);
                default -> throw new IllegalArgumentException("unknown option " + name + " (see docs/BENCHMARKS.md)");
            }
        });
        if (o.modes == null) {
            // The whole benchmark measures both ways; a chosen subset of runs is measured as it always was.
            o.modes = line.options().containsKey("--runs") ? List.of(CONCURRENT) : List.of(CONCURRENT, BACKLOG);
        }
        if (line.options().containsKey("--old-rows") && o.oldRows > 0) {
            if (!o.modes.contains(BACKLOG)) {
                throw new IllegalArgumentException("--old-rows is the backlog mode's scale point: add --mode=backlog");
            }
            if (!o.runs.contains("scale")) {
                // Asking for old rows asks for the scale point, whatever --runs lists.
                o.runs = new ArrayList<>(o.runs);
                o.runs.add("scale");
            }
        }
        return o;
    }

    /** Whether the backlog scale point (txinbox over {@link #oldRows} old inbox rows) runs. */
    boolean scalePoint() {
        return modes.contains(BACKLOG) && runs.contains("scale") && oldRows > 0;
    }

    private static List<String> modes(String csv) {
        List<String> modes = Arrays.stream(csv.split(",")).map(String::trim).distinct().toList();
        for (String mode : modes) {
            if (!mode.equals(CONCURRENT) && !mode.equals(BACKLOG)) {
                throw new IllegalArgumentException("--mode takes concurrent, backlog or both (comma-separated), got "
                        + mode);
            }
        }
        return modes;
    }

    private static List<Integer> ints(String csv) {
        return csv.isBlank() ? List.of() : Arrays.stream(csv.split(",")).map(String::trim).map(Integer::parseInt).toList();
    }
}
