package dev.txinbox.chaos;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import dev.txinbox.harness.Options;
import dev.txinbox.harness.Sqs;
import dev.txinbox.harness.StreamSpec;

/**
 * chaos/run: streams orders through the real service while crashing, restarting and slowing down what it
 * depends on, then holds PostgreSQL against the oracle. A scenario passes only with nothing lost, nothing
 * doubled, every poison message dead-lettered with a reason and no inbox row left unexplained.
 */
public final class Chaos {

    private Chaos() {
    }

    public static void main(String[] args) throws Exception {
        Options<ChaosSuite> options = Options.parseOrExit(new ChaosSuite(), args);
        ChaosSuite suite = options.suite();
        Files.createDirectories(options.logs());
        Path brokerDir = suite.work.resolve("elasticmq");
        deleteRecursively(brokerDir);

        List<Scenario> scenarios = Scenario.all(options).stream()
                .filter(s -> suite.scenarios.isEmpty() || suite.scenarios.contains(s.key())).toList();
        List<Broker.QueueSpec> queues = scenarios.stream().map(Scenario::queue).toList();
        List<ScenarioResult> results = new ArrayList<>();
        System.out.printf("txinbox chaos suite (%s): %d scenarios, %d groups, sent at %d msg/s, seed %d%n",
                options.size(), scenarios.size(), options.groups(), suite.rate, options.seed());
        try (Broker broker = new Broker(suite.port, brokerDir, suite.elasticmqClasspath, queues);
                Sqs sqs = new Sqs(broker.endpoint(), 8)) {
            broker.start();
            Random random = new Random(options.seed());
            for (Scenario scenario : scenarios) {
                System.out.printf("%n== %s: %s%n", scenario.title(), scenario.spec().describe());
                ScenarioResult result = new ScenarioRun(scenario, options, broker, sqs, random).run();
                System.out.println(result.summaryLine());
                results.add(result);
            }
        }
        new ChaosReport(options, results).write();
        long failed = results.stream().filter(r -> !r.passed()).count();
        System.exit(failed == 0 ? 0 : 1);
    }

    /** One fault plan per scenario; each gets its own queue pair, database and stream ids. */
    record Scenario(String key, String title, StreamSpec spec, int instances, Duration visibilityTimeout,
            Fault fault) {

        Broker.QueueSpec queue() {
            return new Broker.QueueSpec("chaos-" + key, visibilityTimeout);
        }

        static List<Scenario> all(Options<ChaosSuite> options) {
            ChaosSuite o = options.suite();
            int messages = options.messages();
            Duration normal = Duration.ofSeconds(30);
            return List.of(
                    new Scenario("kill", "kill -9 the service " + o.kills + " times", spec(options, o.killMessages, 1),
                            1, normal, Fault.kills(o.kills)),
                    new Scenario("postgres", "restart PostgreSQL mid-stream", spec(options, messages, 2), 1, normal,
                            Fault.postgresRestart(Duration.ofSeconds(10))),
                    new Scenario("broker", "restart ElasticMQ mid-stream", spec(options, messages, 3), 1, normal,
                            Fault.brokerRestart(Duration.ofSeconds(5))),
                    new Scenario("two", "two instances on one queue and database, one killed", spec(options, messages, 4),
                            2, normal, Fault.killSecondInstance()),
                    // The handler blocks on a lock the harness holds for longer than the queue's visibility
                    // timeout: SQS hands the message out again while the first attempt still runs.
                    new Scenario("slow", "handler slower than the visibility timeout", spec(options, messages, 5), 1,
                            Duration.ofSeconds(5), Fault.slowHandler(Duration.ofSeconds(12))),
                    new Scenario("sigterm", "SIGTERM during processing, 3 times", spec(options, messages, 6), 1, normal,
                            Fault.terminations(3)));
        }

        /** {@code salt} gives every scenario its own stream (and, with it, its own order and event ids). */
        private static StreamSpec spec(Options<?> options, int count, int salt) {
            return options.stream(count, 0, options.seed() * 31 + salt);
        }
    }

    static void deleteRecursively(Path dir) throws java.io.IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
