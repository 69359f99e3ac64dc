package dev.txinbox.harness;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The real service jar as a child process, configured the way a pod is: by environment variables, with the JVM
 * flags the container image and deploy/k8s/base give it, under the pod's memory limit.
 */
public final class Service implements AutoCloseable {

    /**
     * What the image's start script (ubi9/openjdk-17-runtime, run-java.sh) puts first on the command line; the
     * pod's own flags (JAVA_OPTS_APPEND) come after them and win.
     */
    static final List<String> IMAGE_JVM = List.of("-XX:MaxRAMPercentage=80.0", "-XX:+UseParallelGC",
            "-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=20", "-XX:GCTimeRatio=4", "-XX:AdaptiveSizePolicyWeight=90",
            "-XX:+ExitOnOutOfMemoryError");

    /**
     * The pod: its memory limit as the JVM sees it in a container (deploy/k8s/base/deployment.yaml's limit), and
     * that deployment's JAVA_OPTS_APPEND. {@code BENCH_SERVICE_JVM} (flags, space-separated) comes after both, to
     * measure others: later flags win.
     */
    static final List<String> POD_JVM = List.of("-XX:MaxRAM=384m", "-XX:-UseParallelGC", "-XX:+UseSerialGC",
            "-XX:MaxRAMPercentage=25", "-XX:TieredStopAtLevel=1");

    private final Child child;
    private final int httpPort;
    private final HttpClient http = HttpClient.newHttpClient();

    private Service(Child child, int httpPort) {
        this.child = child;
        this.httpPort = httpPort;
    }

    /** What every run sets; {@code extra} adds or overrides (e.g. parallelism, visibility timeout). */
    public static Map<String, String> env(String database, String sqsEndpoint, String queue, String dlq, int httpPort,
            Map<String, String> extra) {
        Map<String, String> env = new HashMap<>();
        env.put("QUARKUS_DATASOURCE_JDBC_URL", Db.url(database));
        env.put("QUARKUS_SQS_ENDPOINT_OVERRIDE", sqsEndpoint);
        env.put("QUARKUS_SQS_AWS_CREDENTIALS_TYPE", "static");
        env.put("QUARKUS_SQS_AWS_CREDENTIALS_STATIC_PROVIDER_ACCESS_KEY_ID", "bench");
        env.put("QUARKUS_SQS_AWS_CREDENTIALS_STATIC_PROVIDER_SECRET_ACCESS_KEY", "bench");
        env.put("TXINBOX_ORDERS_QUEUE", queue);
        env.put("TXINBOX_ORDERS_DLQ", dlq);
        // The outbox relay publishes the orders' downstream events there; readiness is DOWN while it is missing.
        env.put("TXINBOX_ORDER_EVENTS_QUEUE", eventsQueue(queue));
        env.put("QUARKUS_HTTP_PORT", Integer.toString(httpPort));
        env.put("QUARKUS_LOG_CATEGORY__DEV_TXINBOX__LEVEL", "WARN");
        env.putAll(extra);
        return env;
    }

    /** The queue of the downstream events of the orders consumed from {@code queue}: {@code <base>-events.fifo}. */
    public static String eventsQueue(String queue) {
        return queue.replaceFirst("\\.fifo$", "") + "-events.fifo";
    }

    /** The dead-letter queue of the notifications consumer reading {@link #eventsQueue}: {@code <base>-events-dlq.fifo}. */
    public static String eventsDlq(String queue) {
        return queue.replaceFirst("\\.fifo$", "") + "-events-dlq.fifo";
    }

    public static Service start(Path jar, List<String> jvmOptions, Map<String, String> env, Path log)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(javaHome(env), "bin", "java").toString());
        command.addAll(IMAGE_JVM);
        command.addAll(POD_JVM);
        String extra = System.getenv("BENCH_SERVICE_JVM");
        if (extra != null && !extra.isBlank()) {
            command.addAll(List.of(extra.trim().split("\\s+")));
        }
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar.toString()));
        return new Service(Child.start(command, env, log), Integer.parseInt(env.get("QUARKUS_HTTP_PORT")));
    }

    /**
     * The runtime the service runs on: its own environment's {@code JAVA_HOME} where a run sets it (bench/ab's
     * {@code --env-b=JAVA_HOME=...}, as the image's start script takes it), else {@code BENCH_SERVICE_JAVA_HOME},
     * else the harness's own. The environment the harness inherited does not count: CI's JAVA_HOME is the build's.
     */
    static String javaHome(Map<String, String> env) {
        String own = env.get("JAVA_HOME");
        String bench = System.getenv("BENCH_SERVICE_JAVA_HOME");
        String home = own != null && !own.isBlank() ? own
                : bench != null && !bench.isBlank() ? bench : System.getProperty("java.home");
        if (!Files.isExecutable(Path.of(home, "bin", "java"))) {
            throw new IllegalArgumentException("no bin/java under " + home + " (the service's JAVA_HOME)");
        }
        return home;
    }

    public Child child() {
        return child;
    }

    public long pid() {
        return child.pid();
    }

    public boolean isAlive() {
        return child.isAlive();
    }

    public Path log() {
        return child.log();
    }

    /** Waits for /q/health/ready: database migrated, SQS reachable, the consumer running. */
    public void awaitReady(Duration timeout) throws InterruptedException {
        URI ready = URI.create("http://127.0.0.1:" + httpPort + "/q/health/ready");
        long deadline = System.currentTimeMillis() + timeout.toMillis();
        while (System.currentTimeMillis() < deadline) {
            if (!child.isAlive()) {
                throw new IllegalStateException("the service exited during start-up; see " + child.log());
            }
            try {
                if (http.send(HttpRequest.newBuilder(ready).build(), HttpResponse.BodyHandlers.discarding())
                        .statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("the service was not ready within " + timeout.toSeconds() + " s; see "
                + child.log());
    }

    /** Its outcome and SQS request counters, from /q/metrics (cheap enough to poll every 250 ms). */
    public ServiceCounters counters() throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/q/metrics"))
                .timeout(Duration.ofSeconds(10)).build();
        return ServiceCounters.parse(http.send(request, HttpResponse.BodyHandlers.ofString()).body());
    }

    /** Its stage histograms, from /q/metrics. */
    public StageTimes stageTimes() throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/q/metrics"))
                .timeout(Duration.ofSeconds(10)).build();
        return StageTimes.parse(http.send(request, HttpResponse.BodyHandlers.ofString()).body());
    }

    /** The service's own counters (txinbox_* lines of /q/metrics, without histogram buckets) into {@code file}. */
    public void saveMetrics(Path file) {
        try {
            String body = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + httpPort + "/q/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            Files.writeString(file, String.join("\n", body.lines().filter(l -> l.startsWith("txinbox_")
                    && !l.contains("_bucket")).toList()) + "\n");
        } catch (IOException | InterruptedException e) {
            // the numbers are a convenience; the database is the evidence
        }
    }

    /**
     * Throws if an instance has died on its own (the harness kills and restarts them in the same thread, so
     * a dead one here was not the harness's doing); {@code null} slots are instances not started yet.
     */
    public static void requireAlive(List<Service> instances) {
        for (int i = 0; i < instances.size(); i++) {
            Service service = instances.get(i);
            if (service != null && !service.isAlive()) {
                throw new IllegalStateException((instances.size() == 1 ? "the service" : "instance " + (i + 1))
                        + " died on its own; see " + service.log());
            }
        }
    }

    /** SIGKILL: a crash, as far as the service can tell. */
    public void kill() throws InterruptedException {
        child.kill();
    }

    /** SIGTERM, as Kubernetes stops a pod; SIGKILL after 30 s. */
    @Override
    public void close() throws InterruptedException {
        child.close();
    }
}
