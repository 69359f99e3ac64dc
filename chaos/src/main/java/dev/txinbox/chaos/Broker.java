package dev.txinbox.chaos;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.txinbox.harness.Child;
import dev.txinbox.harness.Service;

/**
 * A standalone ElasticMQ whose messages live in an H2 file, so that a restart keeps them: the chaos
 * suite restarts it mid-stream and expects nothing to go missing. Queues come from the generated
 * configuration (one pair per scenario), so they exist again after every restart.
 */
final class Broker implements AutoCloseable {

    /** A source queue and the visibility timeout it is created with; its dead-letter queue is {@code <name>-dlq.fifo}. */
    record QueueSpec(String base, Duration visibilityTimeout) {

        String name() {
            return base + ".fifo";
        }

        String dlqName() {
            return base + "-dlq.fifo";
        }
    }

    private final int port;
    private final Path dir;
    private final String classpath;
    private final Path config;
    private int starts;
    private Child process;

    Broker(int port, Path dir, String classpath, List<QueueSpec> queues) throws IOException {
        this.port = port;
        this.dir = dir;
        this.classpath = classpath;
        Files.createDirectories(dir);
        this.config = dir.resolve("elasticmq.conf");
        Files.writeString(config, configuration(queues));
    }

    String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    String queueUrl(String name) {
        return endpoint() + "/000000000000/" + name;
    }

    void start() throws IOException, InterruptedException {
        if (answers()) {
            throw new IllegalStateException("something already answers on port " + port
                    + "; stop it (the chaos suite starts its own ElasticMQ)");
        }
        starts++;
        process = Child.start(Child.javaWithClasspath("org.elasticmq.server.Main", classpath,
                List.of("-Xmx512m", "-Dconfig.file=" + config)), Map.of(), dir.resolve("elasticmq-" + starts + ".log"));
        long deadline = System.currentTimeMillis() + 60_000;
        while (!answers()) {
            if (!process.isAlive() || System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("ElasticMQ did not start; see " + process.log());
            }
            Thread.sleep(250);
        }
    }

    /**
     * SIGTERM and wait: the restart an operator (or a node drain) does. ElasticMQ takes ~20 s to stop
     * while polls are in flight; a SIGKILL could cost it the last writes to its store, which the
     * scenario would then report as lost, so it gets a generous 90 s.
     */
    void stop() throws InterruptedException {
        if (process != null) {
            process.terminate(90);
        }
    }

    long pid() {
        return process.pid();
    }

    private boolean answers() {
        try {
            HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(endpoint() + "/?Action=ListQueues"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
            return true;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private String configuration(List<QueueSpec> queues) {
        StringBuilder conf = new StringBuilder();
        conf.append("include classpath(\"application.conf\")\n")
                .append("node-address { protocol = http, host = \"127.0.0.1\", port = ").append(port)
                .append(", context-path = \"\" }\n")
                .append("rest-sqs { enabled = true, bind-port = ").append(port)
                .append(", bind-hostname = \"127.0.0.1\", sqs-limits = strict }\n")
                .append("messages-storage { enabled = true, uri = \"jdbc:h2:").append(dir.toAbsolutePath().resolve("messages"))
                .append("\" }\n")
                .append("queues {\n");
        for (QueueSpec q : queues) {
            conf.append("  \"").append(q.name()).append("\" { fifo = true, contentBasedDeduplication = false,")
                    .append(" defaultVisibilityTimeout = ").append(q.visibilityTimeout().toSeconds()).append(" seconds }\n");
            conf.append("  \"").append(q.dlqName()).append("\" { fifo = true, contentBasedDeduplication = false }\n");
            conf.append("  \"").append(Service.eventsQueue(q.name()))
                    .append("\" { fifo = true, contentBasedDeduplication = false, defaultVisibilityTimeout = ")
                    .append(q.visibilityTimeout().toSeconds()).append(" seconds }\n");
            conf.append("  \"").append(Service.eventsDlq(q.name()))
                    .append("\" { fifo = true, contentBasedDeduplication = false }\n");
        }
        return conf.append("}\n").toString();
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
