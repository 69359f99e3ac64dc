package dev.txinbox.support;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.awaitility.Awaitility;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The packaged service (target/quarkus-app) as a pod runs it: the jar, configured by environment variables only,
 * with AWS credentials from nothing but what the scenario gives it (no keys, no profile files, never the instance
 * metadata address), on a database of its own; asked as Kubernetes asks it, with a probe's timeout.
 */
public final class PackagedService implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String database;
    private final String jdbc;
    private final HttpClient http = HttpClient.newHttpClient();
    private Process process;
    private Path log;
    private int port;

    public PackagedService(String database) {
        this.database = database;
        this.jdbc = "jdbc:postgresql://127.0.0.1:5432/" + database;
    }

    public void freshDatabase() throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", null);
                Statement s = c.createStatement()) {
            s.execute("drop database if exists " + database + " with (force)");
            s.execute("create database " + database + " owner txinbox");
        }
    }

    /** Starts the service against {@code sqsEndpoint} with {@code settings} on top, and waits until it has started. */
    public void start(Path log, String sqsEndpoint, Map<String, String> settings) throws Exception {
        this.log = log;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-jar", "target/quarkus-app/quarkus-run.jar")
                .redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(name -> name.startsWith("AWS_"));
        Map<String, String> all = new HashMap<>(Map.of(
                "QUARKUS_DATASOURCE_JDBC_URL", jdbc,
                "QUARKUS_SQS_ENDPOINT_OVERRIDE", sqsEndpoint,
                "AWS_REGION", "eu-west-1",
                "AWS_CONFIG_FILE", "target/no-aws-config", "AWS_SHARED_CREDENTIALS_FILE", "target/no-aws-credentials",
                "AWS_EC2_METADATA_DISABLED", "true",
                "QUARKUS_HTTP_PORT", Integer.toString(port),
                "QUARKUS_LOG_CONSOLE_JSON_ENABLED", "false",
                "TXINBOX_HEALTH_REFRESH", "1s",
                "MP_MESSAGING_INCOMING_ORDERS_WAIT_TIME_SECONDS", "1"));
        all.putAll(settings);
        env.putAll(all);
        process = builder.start();
        await(Duration.ofSeconds(90), () -> {
            assertTrue(process.isAlive(), "the service exited at start; see " + log);
            return status("/q/health/started") == 200;
        });
    }

    /** One check of the readiness answer, as compact JSON ("" when readiness does not answer in time). */
    public String readinessCheck(String name) {
        try {
            for (JsonNode check : JSON.readTree(get("/q/health/ready")).path("checks")) {
                if (check.path("name").asText().equals(name)) {
                    return check.toString();
                }
            }
        } catch (Exception e) {
            // no answer yet
        }
        return "";
    }

    public int status(String path) {
        try {
            return http.send(probe(path), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    public String get(String path) {
        try {
            return http.send(probe(path), HttpResponse.BodyHandlers.ofString()).body();
        } catch (Exception e) {
            return "";
        }
    }

    /** A counter's value from /q/metrics, by its name and labels as Prometheus prints them (0 when absent). */
    public double metric(String series) {
        return get("/q/metrics").lines().filter(line -> line.startsWith(series + " "))
                .mapToDouble(line -> Double.parseDouble(line.substring(series.length() + 1).trim())).sum();
    }

    /** Lines of the service's log holding {@code text}. */
    public long logLines(String text) throws Exception {
        return Files.readAllLines(log).stream().filter(line -> line.contains(text)).count();
    }

    public long count(String sql) {
        try (Connection c = DriverManager.getConnection(jdbc, "txinbox", "txinbox");
                PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        } catch (Exception e) {
            throw new IllegalStateException(sql, e);
        }
    }

    public void execute(String sql, Object... parameters) throws Exception {
        try (Connection c = DriverManager.getConnection(jdbc, "txinbox", "txinbox");
                PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                ps.setObject(i + 1, parameters[i]);
            }
            ps.executeUpdate();
        }
    }

    /** As Kubernetes asks: a probe that does not answer within its timeout has failed. */
    private HttpRequest probe(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(5))
                .build();
    }

    /**
     * Starts the packaged service with {@code env} on top of this process's environment and expects it to refuse:
     * to exit, not zero, within 60 s. Returns its log.
     */
    public static String refusedStart(Map<String, String> env) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        File output = File.createTempFile("refused-start", ".log", new File("target"));
        ProcessBuilder builder = new ProcessBuilder(java, "-jar", "target/quarkus-app/quarkus-run.jar")
                .redirectErrorStream(true).redirectOutput(output);
        builder.environment().putAll(env);
        Process process = builder.start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the service did not stop on its settings");
        assertNotEquals(0, process.exitValue(), "the service started with settings it should refuse");
        return Files.readString(output.toPath());
    }

    public static void await(Duration atMost, BooleanSupplier condition) {
        Awaitility.await().atMost(atMost).pollInterval(Duration.ofMillis(250)).until(condition::getAsBoolean);
    }

    /** Stops it as Kubernetes does (SIGTERM) and waits up to {@code grace}; returns how long it took. */
    public Duration stop(Duration grace) throws Exception {
        long stopping = System.nanoTime();
        process.destroy();
        assertTrue(process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS), "the service did not stop within " + grace);
        process = null;
        return Duration.ofNanos(System.nanoTime() - stopping);
    }

    @Override
    public void close() throws Exception {
        if (process != null) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            process = null;
        }
    }
}
