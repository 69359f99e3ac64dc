package dev.txinbox.chaos;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import dev.txinbox.harness.Db;

/**
 * What goes wrong during a scenario. Faults are placed by progress (a fraction of the stream's events
 * processed) rather than by time, so that they land mid-stream however fast the machine is.
 */
@FunctionalInterface
interface Fault {

    void inject(ScenarioRun run) throws Exception;

    /** SIGKILL at {@code count} random points of the stream, restarting the service each time. */
    static Fault kills(int count) {
        return run -> {
            double[] points = new double[count];
            for (int i = 0; i < count; i++) {
                points[i] = 0.03 + run.random().nextDouble() * 0.9;
            }
            Arrays.sort(points);
            for (double point : points) {
                run.awaitProgress(point);
                Thread.sleep(run.random().nextInt(500));
                run.kill(0);
                run.restart(0);
            }
        };
    }

    /** PostgreSQL stopped (fast: open connections are cut), down for {@code downtime}, started again. */
    static Fault postgresRestart(Duration downtime) {
        return run -> {
            run.awaitProgress(0.3);
            run.note("PostgreSQL stopped");
            pgCluster("stop", "-m", "fast");
            try {
                Thread.sleep(downtime.toMillis());
            } finally {
                pgCluster("start"); // whatever happens, the machine's PostgreSQL comes back
            }
            run.note("PostgreSQL started");
        };
    }

    /** ElasticMQ stopped (its messages kept in H2), down for {@code downtime}, started again. */
    static Fault brokerRestart(Duration downtime) {
        return run -> {
            run.awaitProgress(0.3);
            run.note("ElasticMQ stopped");
            run.broker().stop();
            try {
                Thread.sleep(downtime.toMillis());
            } finally {
                run.broker().start();
            }
            run.note("ElasticMQ started");
        };
    }

    /** With two instances running, the second dies at half way (its in-flight messages go to the first) and comes back. */
    static Fault killSecondInstance() {
        return run -> {
            run.awaitProgress(0.5);
            run.kill(1);
            run.restart(1);
        };
    }

    /**
     * At three points the harness takes an EXCLUSIVE lock on {@code orders} for {@code hold}, longer than the
     * queue's visibility timeout: every handler that writes an order blocks, its message becomes visible
     * again and is delivered a second time while the first attempt still waits.
     */
    static Fault slowHandler(Duration hold) {
        return run -> {
            for (double point : new double[] { 0.2, 0.5, 0.8 }) {
                run.awaitProgress(point);
                try (Connection db = Db.connect(Db.url(run.database()));
                        Statement s = db.createStatement()) {
                    db.setAutoCommit(false);
                    s.execute("lock table orders in exclusive mode");
                    run.note("orders locked for " + hold.toSeconds() + " s");
                    Thread.sleep(hold.toMillis());
                    db.commit();
                }
            }
        };
    }

    /** SIGTERM at {@code count} points, as Kubernetes stops a pod; the stop must be clean and quick. */
    static Fault terminations(int count) {
        return run -> {
            for (int i = 1; i <= count; i++) {
                run.awaitProgress((double) i / (count + 1));
                run.terminate(0);
                run.restart(0);
            }
        };
    }

    private static void pgCluster(String... action) throws Exception {
        String version;
        try (Stream<Path> versions = Files.list(Path.of("/etc/postgresql"))) {
            version = versions.map(p -> p.getFileName().toString()).sorted().reduce((a, b) -> b)
                    .orElseThrow(() -> new IllegalStateException("no cluster under /etc/postgresql"));
        }
        List<String> command = new ArrayList<>(List.of("pg_ctlcluster",
                "--skip-systemctl-redirect", version, "main"));
        command.addAll(Arrays.asList(action));
        Process p = new ProcessBuilder(command).inheritIO().start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed with exit " + p.exitValue());
        }
    }
}
