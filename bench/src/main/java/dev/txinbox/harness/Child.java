package dev.txinbox.harness;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A process the harness starts and measures: the service jar or a baseline consumer. */
public final class Child implements AutoCloseable {

    private final Process process;
    private final Path log;
    private volatile double peakRssMiB;
    private final Thread sampler;

    private Child(Process process, Path log) {
        this.process = process;
        this.log = log;
        this.sampler = new Thread(() -> {
            while (process.isAlive()) {
                peakRssMiB = Math.max(peakRssMiB, Proc.rssMiB(process.pid()));
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "rss-sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    public static Child start(List<String> command, Map<String, String> env, Path log) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().putAll(env);
        return new Child(builder.start(), log);
    }

    /** The same JVM the harness runs in, with its own classpath, running {@code mainClass}. */
    public static List<String> java(String mainClass, List<String> jvmOptions, String... args) {
        return javaWithClasspath(mainClass, System.getProperty("java.class.path"), jvmOptions, args);
    }

    /** The same JVM the harness runs in, with {@code classpath}, running {@code mainClass}. */
    public static List<String> javaWithClasspath(String mainClass, String classpath, List<String> jvmOptions,
            String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass);
        command.addAll(List.of(args));
        return command;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Path log() {
        return log;
    }

    public double peakRssMiB() {
        return peakRssMiB;
    }

    public boolean waitFor(long seconds) throws InterruptedException {
        return process.waitFor(seconds, TimeUnit.SECONDS);
    }

    public int exitValue() {
        return process.exitValue();
    }

    /** SIGKILL: a crash, as far as the process can tell. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM, then SIGKILL if it has not stopped within 30 s. */
    @Override
    public void close() throws InterruptedException {
        terminate(30);
    }

    /** SIGTERM, then SIGKILL if it has not stopped within {@code seconds}. */
    public void terminate(long seconds) throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
        sampler.interrupt();
    }
}
