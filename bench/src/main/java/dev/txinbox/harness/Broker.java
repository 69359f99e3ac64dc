package dev.txinbox.harness;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The standalone ElasticMQ a run measures against: the one its script started, or a new one on the same port in its
 * place ({@link #restart}), so that a consumer's run pays for no earlier run's messages, deduplication ids or heap.
 * A broker the harness started is stopped as the harness exits; the script's stays the script's to stop.
 */
public final class Broker implements AutoCloseable {

    private final int port;
    private final Path log;
    private final long scriptsPid;
    private volatile long pid;

    public Broker(String endpoint, long pid, Path log) {
        this.port = URI.create(endpoint).getPort();
        this.scriptsPid = pid;
        this.pid = pid;
        this.log = log;
        Runtime.getRuntime().addShutdownHook(new Thread(this::close, "broker-stop"));
    }

    public long pid() {
        return pid;
    }

    /**
     * Stops the broker and starts a new one on its port (dev/elasticmq/start, as the script does, with the run's
     * heap), waiting until it answers. The harness's SQS clients reconnect on their next call.
     */
    public synchronized void restart() throws IOException, InterruptedException {
        stop(pid);
        ProcessBuilder builder = new ProcessBuilder("dev/elasticmq/start").redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().put("ELASTICMQ_PORT", Integer.toString(port));
        builder.environment().put("ELASTICMQ_LOG", log.toString());
        builder.environment().put("ELASTICMQ_JAVA_OPTS", "-Xmx1g");
        Process start = builder.start();
        String out;
        try (var stdout = start.getInputStream()) {
            out = new String(stdout.readAllBytes()).trim();
        }
        if (start.waitFor() != 0 || out.isEmpty()) {
            throw new IllegalStateException("ElasticMQ did not start again on port " + port + "; see " + log);
        }
        pid = Long.parseLong(out.lines().reduce((a, b) -> b).orElseThrow());
    }

    private static void stop(long pid) throws InterruptedException {
        ProcessHandle handle = ProcessHandle.of(pid).orElse(null);
        if (handle == null) {
            return;
        }
        handle.destroy();
        try {
            handle.onExit().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            handle.destroyForcibly();
        }
    }

    @Override
    public void close() {
        if (pid != scriptsPid) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
        }
    }
}
