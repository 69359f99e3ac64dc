package dev.txinbox.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.txinbox.harness.Options;
import dev.txinbox.harness.OrderStream;
import dev.txinbox.harness.StreamSpec;

/**
 * bench/ab: bench/run's backlog run of txinbox ({@link Bench#txinboxBacklog}) with two builds of the service,
 * A and B, on one broker and database. A warm-up run of A on the fresh broker comes first and is discarded:
 * the first run a broker serves is the slowest. Then {@code --rounds} rounds of both, A first in odd rounds
 * and B first in even ones, so that neither build always meets the broker and the machine as the other left
 * them. The report has every run, the medians per build and their ratio B / A. Exits 1 if a run was not
 * exactly once.
 */
public final class Ab {

    /** One side: A or B, the revision (or directory) as given, the commit it was built from, its jar. */
    record Build(String label, String revision, String commit, String jar) {
    }

    /** One measured run of a round. */
    record Row(int round, String build, RunResult result) {
    }

    private Ab() {
    }

    public static void main(String[] args) throws Exception {
        Options<AbSuite> options = Options.parseOrExit(new AbSuite(), args);
        AbSuite suite = options.suite();
        Build a = new Build("A", options.arguments().get(0), suite.commitA, options.jar().toString());
        Build b = new Build("B", options.arguments().get(1), suite.commitB, suite.jarB.toString());
        StreamSpec spec = suite.spec(options);
        OrderStream stream = OrderStream.generate(spec);
        System.out.printf("A/B of the service jar, backlog mode, run %s: %s; %d warm-up messages ahead of it; rounds: %d%n",
                suite.run, spec.describe(), suite.backlogWarmUp, suite.rounds);
        for (Build build : List.of(a, b)) {
            System.out.printf("  %s: %s%s, %s%n", build.label(), build.revision(),
                    build.commit().isEmpty() ? "" : " (" + build.commit() + ")", build.jar());
        }
        List<Row> rows = new ArrayList<>();
        RunResult warmUp;
        try (Bench bench = new Bench(options)) {
            System.out.println("warm-up run (A, discarded):");
            warmUp = run(bench, a, "warm-up, A", stream, spec, suite);
            for (int round = 1; round <= suite.rounds; round++) {
                System.out.println("round " + round + ":");
                for (Build build : round % 2 == 1 ? List.of(a, b) : List.of(b, a)) {
                    rows.add(new Row(round, build.label(), run(bench, build, "round " + round + ", " + build.label(),
                            stream, spec, suite)));
                }
            }
            new AbReport(options, spec, List.of(a, b), warmUp, rows, bench.machine()).write();
        }
        boolean exactlyOnce = warmUp.verdict().exactlyOnce()
                && rows.stream().allMatch(r -> r.result().verdict().exactlyOnce());
        System.exit(exactlyOnce ? 0 : 1);
    }

    private static RunResult run(Bench bench, Build build, String name, OrderStream stream, StreamSpec spec,
            AbSuite suite) throws Exception {
        return suite.run.equals("relay")
                ? bench.relayBacklog(Path.of(build.jar()), name, stream, spec.groups(), suite.parallelism)
                : bench.txinboxBacklog(Path.of(build.jar()), name, stream, spec.groups(), suite.parallelism, 0, false);
    }
}
