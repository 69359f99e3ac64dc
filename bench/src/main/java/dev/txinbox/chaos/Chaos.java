package dev.txinbox.chaos;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import dev.txinbox.harness.Sqs;
import dev.txinbox.harness.StreamSpec;

/**
 * chaos/run: streams orders through the real service while crashing, restarting and slowing down what it
 * depends on, then holds PostgreSQL against the oracle. A scenario passes only with nothing lost, nothing
 * doubled, every poison message dead-lettered with a reason and no inbox row left unexplained.
 */
public final class Chaos {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Chaos() {
    }

    public static void main(String[] args) throws Exception {
        ChaosOptions options = ChaosOptions.parse(args);
        Files.createDirectories(options.out.resolve("logs"));
        Path brokerDir = options.work.resolve("elasticmq");
        deleteRecursively(brokerDir);

        List<Scenario> scenarios = Scenario.all(options).stream()
                .filter(s -> options.scenarios.isEmpty() || options.scenarios.contains(s.key())).toList();
        List<Broker.QueueSpec> queues = scenarios.stream().map(Scenario::queue).toList();
        List<ScenarioResult> results = new ArrayList<>();
        System.out.printf("txinbox chaos suite (%s): %d scenarios, %d groups, sent at %d msg/s, seed %d%n",
                options.mode, scenarios.size(), options.groups, options.rate, options.seed);
        try (Broker broker = new Broker(options.port, brokerDir, options.elasticmqClasspath, queues);
                Sqs sqs = new Sqs(broker.endpoint(), 8)) {
            broker.start();
            Random random = new Random(options.seed);
            for (Scenario scenario : scenarios) {
                System.out.printf("%n== %s: %s%n", scenario.title(), scenario.spec().describe());
                ScenarioResult result = new ScenarioRun(scenario, options, broker, sqs, random).run();
                System.out.println(result.summaryLine());
                results.add(result);
            }
        }
        ChaosReport report = new ChaosReport(options, results);
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmm"));
        Path json = options.out.resolve(options.mode + "-" + stamp + ".json");
        Path markdown = options.out.resolve(options.mode + "-" + stamp + ".md");
        JSON.writeValue(json.toFile(), report.document());
        Files.writeString(markdown, report.markdown());
        System.out.println();
        System.out.println(report.markdown());
        System.out.println("results: " + json + " and " + markdown);
        long failed = results.stream().filter(r -> !r.passed()).count();
        System.exit(failed == 0 ? 0 : 1);
    }

    /** One fault plan per scenario; each gets its own queue pair, database and stream ids. */
    record Scenario(String key, String title, StreamSpec spec, int instances, Duration visibilityTimeout,
            Fault fault) {

        Broker.QueueSpec queue() {
            return new Broker.QueueSpec("chaos-" + key, visibilityTimeout);
        }

        static List<Scenario> all(ChaosOptions o) {
            Duration normal = Duration.ofSeconds(30);
            return List.of(
                    new Scenario("kill", "kill -9 the service " + o.kills + " times", o.spec(o.killMessages, 1), 1,
                            normal, Fault.kills(o.kills)),
                    new Scenario("postgres", "restart PostgreSQL mid-stream", o.spec(o.messages, 2), 1, normal,
                            Fault.postgresRestart(Duration.ofSeconds(10))),
                    new Scenario("broker", "restart ElasticMQ mid-stream", o.spec(o.messages, 3), 1, normal,
                            Fault.brokerRestart(Duration.ofSeconds(5))),
                    new Scenario("two", "two instances on one queue and database, one killed", o.spec(o.messages, 4), 2,
                            normal, Fault.killSecondInstance()),
                    // The handler blocks on a lock the harness holds for longer than the queue's visibility
                    // timeout: SQS hands the message out again while the first attempt still runs.
                    new Scenario("slow", "handler slower than the visibility timeout", o.spec(o.messages, 5), 1,
                            Duration.ofSeconds(5), Fault.slowHandler(Duration.ofSeconds(12))),
                    new Scenario("sigterm", "SIGTERM during processing, 3 times", o.spec(o.messages, 6), 1, normal,
                            Fault.terminations(3)));
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
