package dev.txinbox.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.txinbox.harness.Options;
import dev.txinbox.harness.OrderStream;
import dev.txinbox.harness.StreamSpec;

/**
 * bench/ab: bench/run's backlog run of txinbox ({@link Bench#txinboxBacklog}) with two builds of the service,
 * A and B, on one broker and database. A warm-up run of A on the fresh broker comes first and is discarded:
 * the first run a broker serves is the slowest. Then {@code --rounds} rounds of both, A first in odd rounds
 * and B first in even ones, so that neither build always meets the broker and the machine as the other left
 * them. With a side C (B's build, its own settings) the three take turns at going first. The report has every
 * run, the medians per side and their ratios to A. Exits 1 if a run was not exactly once.
 */
public final class Ab {

    /**
     * One side: A, B or C, the revision (or directory) as given, the commit it was built from, its jar, and the
     * settings added to its environment.
     */
    record Build(String label, String revision, String commit, String jar, Map<String, String> env,
            boolean bareSends) {

        /** Its settings and, if it has one, the bare sender beside it, as the report and the console say them. */
        String extras() {
            String settings = env.isEmpty() ? "" : ", with `" + AbSuite.show(env) + "`";
            return settings + (bareSends ? ", the harness's bare sends beside it (`--bare-sends`)" : "");
        }
    }

    /** One measured run of a round. */
    record Row(int round, String build, RunResult result) {
    }

    private Ab() {
    }

    public static void main(String[] args) throws Exception {
        Options<AbSuite> options = Options.parseOrExit(new AbSuite(), args);
        AbSuite suite = options.suite();
        Build a = new Build("A", options.arguments().get(0), suite.commitA, options.jar().toString(), suite.envA,
                suite.bareSendsSide.equals("A"));
        Build b = new Build("B", options.arguments().get(1), suite.commitB, suite.jarB.toString(), suite.envB,
                suite.bareSendsSide.equals("B"));
        List<Build> builds = suite.envC == null ? List.of(a, b)
                : List.of(a, b, new Build("C", b.revision(), b.commit(), b.jar(), suite.envC,
                        suite.bareSendsSide.equals("C")));
        StreamSpec spec = suite.spec(options);
        OrderStream stream = OrderStream.generate(spec);
        System.out.printf("A/B of the service jar, backlog mode, run %s: %s; %d warm-up messages ahead of it; rounds: %d%n",
                suite.run, spec.describe(), suite.backlogWarmUp, suite.rounds);
        for (Build build : builds) {
            System.out.printf("  %s: %s%s, %s%s%n", build.label(), build.revision(),
                    build.commit().isEmpty() ? "" : " (" + build.commit() + ")", build.jar(), build.extras());
        }
        List<Row> rows = new ArrayList<>();
        RunResult warmUp;
        try (Bench bench = new Bench(options)) {
            System.out.println("warm-up run (A, discarded):");
            warmUp = run(bench, a, "warm-up, A", stream, spec, suite);
            for (int round = 1; round <= suite.rounds; round++) {
                System.out.println("round " + round + ":");
                for (Build build : turn(builds, round)) {
                    rows.add(new Row(round, build.label(), run(bench, build, "round " + round + ", " + build.label(),
                            stream, spec, suite)));
                }
            }
            new AbReport(options, spec, builds, warmUp, rows, bench.machine()).write();
        }
        boolean exactlyOnce = warmUp.verdict().exactlyOnce()
                && rows.stream().allMatch(r -> r.result().verdict().exactlyOnce());
        System.exit(exactlyOnce ? 0 : 1);
    }

    /** The sides in round {@code round}'s order: each goes first in turn (A, B, A, ... for two). */
    static List<Build> turn(List<Build> builds, int round) {
        int first = (round - 1) % builds.size();
        List<Build> order = new ArrayList<>(builds.subList(first, builds.size()));
        order.addAll(builds.subList(0, first));
        return order;
    }

    private static RunResult run(Bench bench, Build build, String name, OrderStream stream, StreamSpec spec,
            AbSuite suite) throws Exception {
        return suite.run.equals("relay")
                ? bench.relayBacklog(Path.of(build.jar()), name, stream, spec.groups(), suite.parallelism, build.env())
                : bench.txinboxBacklog(Path.of(build.jar()), name, stream, spec.groups(), suite.parallelism, 0, false,
                        build.bareSends(), build.env());
    }
}
