package dev.txinbox.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.txinbox.harness.Options;
import dev.txinbox.harness.StreamSpec;

/**
 * bench/run's own options (docs/BENCHMARKS.md); the ones it shares with chaos/run are {@link Options}'.
 * {@code --quick} shrinks the curves, both warm-ups, the paced run and the scale point. bench/ab's
 * ({@link AbSuite}) are these, narrowed to its one kind of run.
 */
public class BenchSuite implements Options.Suite {

    static final String CONCURRENT = "concurrent";
    static final String BACKLOG = "backlog";
    /** The fresh-pod mode: a fresh consumer on a pre-filled queue, no warm-up, measured from 20 % done. */
    static final String FRESH = "fresh";
    static final String JFR = "--jfr";
    static final String BARE_SENDS = "--bare-sends";
    /** The Camel baseline that also sends each applied event downstream inside its route: the dual write. */
    static final String DUAL_WRITE = "dual-write";
    static final List<String> RUNS = List.of("txinbox", "drain", "naive", "latency", "curves", "scale", "relay",
            "camel", DUAL_WRITE);

    /** Measuring modes, in order; see {@link #complete} for the default. */
    List<String> modes;
    int curveMessages = 20_000;
    int pacedSeconds = 30;
    /** The relay run's paced phase, events/s; 0: half what the relay just did flat out. */
    int relayPacedRate = 0;
    int warmUp = 10_000;
    /** Messages of other orders queued ahead of a backlog run's stream: the window opens once they are done. */
    int backlogWarmUp = 50_000;
    /** The fresh-pod mode's stream sizes, one run of each consumer per size. */
    List<Integer> freshMessages = List.of(30_000, 100_000);
    /** The fresh-pod mode's txinbox runs: as shipped (relay on) and with the outbox relay off. */
    List<String> freshRelay = List.of("on", "off");
    /** Whether each fresh-mode run gets a broker of its own (restarted on the same port). */
    boolean freshBroker = true;
    int parallelism = 4; // the service's default
    List<Integer> parallelismCurve = List.of(1, 2, 4, 8);
    List<Integer> groupCurve = List.of(1, 10, 1000);
    int payloadBytes = 0;
    int producerThreads = 4;
    /** Old PROCESSED inbox rows under the backlog scale point; 0 leaves it out. */
    long oldRows = 10_000_000;
    String endpoint = "http://127.0.0.1:9334";
    long brokerPid;
    boolean jfr;
    /** A {@link dev.txinbox.harness.BareSender} beside the backlog txinbox run. */
    boolean bareSends;
    List<String> runs = RUNS;
    /** Instances of the service in the backlog txinbox run ({@link Pods}), one run per count, in order. */
    List<Pods.Count> instances = List.of(Pods.Count.ONE);

    @Override
    public String script() {
        return "bench/run";
    }

    @Override
    public String docs() {
        return "docs/BENCHMARKS.md";
    }

    @Override
    public Options.Defaults defaults(boolean quick) {
        return new Options.Defaults(quick ? 10_000 : 100_000, 1000, 0.001, 42, 18080, Path.of("bench/results"));
    }

    @Override
    public void quick() {
        curveMessages = 3_000;
        pacedSeconds = 10;
        warmUp = 3_000;
        backlogWarmUp = 5_000;
        oldRows = 200_000; // exercises the scale point's path; too small to say anything about scale
        freshMessages = List.of(3_000, 10_000);
    }

    @Override
    public Set<String> flags() {
        return new LinkedHashSet<>(List.of(JFR, BARE_SENDS)); // the usage lists them in this order
    }

    @Override
    public Set<String> fromScript() {
        return Set.of("--broker-pid", "--endpoint");
    }

    @Override
    public List<Options.Option> options() {
        return List.of(
                new Options.Option("--mode", () -> modes == null ? "concurrent,backlog (concurrent alone with --runs)"
                        : modes, v -> modes = modes(v)),
                new Options.Option("--runs", () -> runs, v -> runs = runs(v)),
                new Options.Option("--old-rows", () -> oldRows, v -> oldRows = Long.parseLong(v)),
                new Options.Option("--curve-messages", () -> curveMessages, v -> curveMessages = Integer.parseInt(v)),
                new Options.Option("--paced-seconds", () -> pacedSeconds, v -> pacedSeconds = Integer.parseInt(v)),
                new Options.Option("--relay-paced-rate", () -> relayPacedRate, v -> relayPacedRate = Integer.parseInt(v)),
                new Options.Option("--warm-up", () -> warmUp, v -> warmUp = Integer.parseInt(v)),
                new Options.Option("--backlog-warm-up", () -> backlogWarmUp, v -> backlogWarmUp = Integer.parseInt(v)),
                new Options.Option("--fresh-messages", () -> freshMessages, v -> freshMessages = ints(v)),
                new Options.Option("--fresh-relay", () -> freshRelay, v -> freshRelay = relay(v)),
                new Options.Option("--fresh-broker", () -> freshBroker ? "on" : "off", v -> freshBroker = onOff(v)),
                new Options.Option("--parallelism", () -> parallelism, v -> parallelism = Integer.parseInt(v)),
                new Options.Option("--parallelism-curve", () -> parallelismCurve, v -> parallelismCurve = ints(v)),
                new Options.Option("--group-curve", () -> groupCurve, v -> groupCurve = ints(v)),
                new Options.Option("--payload-bytes", () -> payloadBytes, v -> payloadBytes = Integer.parseInt(v)),
                new Options.Option("--producer-threads", () -> producerThreads,
                        v -> producerThreads = Integer.parseInt(v)),
                new Options.Option("--endpoint", () -> endpoint, v -> endpoint = v),
                new Options.Option("--broker-pid", () -> brokerPid, v -> brokerPid = Long.parseLong(v)),
                new Options.Option("--instances", () -> Pods.Count.describe(instances),
                        v -> instances = Pods.Count.parse(v)));
    }

    @Override
    public void complete(Options<?> options) {
        if (warmUp < 1) {
            throw new IllegalArgumentException("--warm-up takes 1 message or more, got " + warmUp);
        }
        if (backlogWarmUp < 0) {
            throw new IllegalArgumentException("--backlog-warm-up takes 0 messages or more, got " + backlogWarmUp);
        }
        jfr = options.flag(JFR);
        if (modes == null) {
            // The whole benchmark measures both ways; a chosen subset of runs is measured as it always was, in the
            // concurrent mode, but the relay's run is a backlog (of outbox events) by nature.
            if (!options.given("--runs")) {
                modes = List.of(CONCURRENT, BACKLOG);
            } else if (runs.equals(List.of("relay"))) {
                modes = List.of(BACKLOG);
            } else {
                modes = runs.contains("relay") ? List.of(CONCURRENT, BACKLOG) : List.of(CONCURRENT);
            }
        }
        if (options.given("--runs") && runs.contains(DUAL_WRITE) && !modes.contains(FRESH)) {
            throw new IllegalArgumentException(DUAL_WRITE + " runs in the fresh mode: add --mode=fresh");
        }
        bareSends = options.flag(BARE_SENDS);
        if (bareSends && !modes.contains(BACKLOG)) {
            throw new IllegalArgumentException(BARE_SENDS + " goes beside the backlog mode's txinbox run: add"
                    + " --mode=backlog");
        }
        if (!instances.equals(List.of(Pods.Count.ONE)) && !modes.contains(BACKLOG)) {
            throw new IllegalArgumentException("--instances goes with the backlog mode's txinbox run: add --mode=backlog");
        }
        if (options.given("--old-rows") && oldRows > 0) {
            if (!modes.contains(BACKLOG)) {
                throw new IllegalArgumentException("--old-rows is the backlog mode's scale point: add --mode=backlog");
            }
            if (!runs.contains("scale")) {
                // Asking for old rows asks for the scale point, whatever --runs lists.
                runs = new ArrayList<>(runs);
                runs.add("scale");
            }
        }
    }

    /** The main stream: {@code --messages} with the shared shape, this suite's payload padding and seed. */
    StreamSpec spec(Options<?> options) {
        return options.stream(options.messages(), payloadBytes, options.seed());
    }

    /** The modes measured, in order. */
    public List<String> modes() {
        return modes;
    }

    /** The runs chosen ({@code --runs}, and {@code scale} when {@code --old-rows} asks for it). */
    public List<String> runs() {
        return runs;
    }

    /** Whether the backlog scale point (txinbox over {@link #oldRows} old inbox rows) runs. */
    public boolean scalePoint() {
        return modes.contains(BACKLOG) && runs.contains("scale") && oldRows > 0;
    }

    private static List<String> modes(String csv) {
        List<String> modes = Options.list(csv).stream().distinct().toList();
        if (modes.isEmpty() || !List.of(CONCURRENT, BACKLOG, FRESH).containsAll(modes)) {
            throw new IllegalArgumentException("--mode takes some of concurrent, backlog, fresh (comma-separated), got '"
                    + csv + "'");
        }
        return modes;
    }

    private static List<String> relay(String csv) {
        List<String> relay = Options.list(csv).stream().distinct().toList();
        if (relay.isEmpty() || !List.of("on", "off").containsAll(relay)) {
            throw new IllegalArgumentException("--fresh-relay takes on, off or both, got '" + csv + "'");
        }
        return relay;
    }

    private static boolean onOff(String v) {
        return switch (v) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("--fresh-broker takes on or off, got '" + v + "'");
        };
    }

    private static List<String> runs(String csv) {
        List<String> runs = Options.list(csv);
        if (!RUNS.containsAll(runs)) {
            throw new IllegalArgumentException("--runs takes some of " + String.join(",", RUNS) + ", got '" + csv + "'");
        }
        return runs;
    }

    private static List<Integer> ints(String csv) {
        return Options.list(csv).stream().map(Integer::parseInt).toList();
    }
}
