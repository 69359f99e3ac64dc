package dev.txinbox.bench;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.txinbox.harness.Proc;

/**
 * How a baseline consumer tells the harness how far it is: a line {@code progress <handled> <atMillis>
 * <cpuMillis> <sqsRequests>} on its output whenever something moved (at most every 50 ms). The harness
 * cannot read a baseline's counters otherwise, and a backlog run must know when its warm-up is done. The line
 * carries the consumer's own CPU and clock, so that count, time and CPU of the window's start agree
 * even though the harness reads the line a little later.
 */
public final class Progress {

    private static final String PREFIX = "progress ";
    static final long INTERVAL_MILLIS = 50;

    /** One progress line. */
    public record Mark(long handled, long atMillis, double cpuMillis, long sqsRequests) {
    }

    private Progress() {
    }

    /** Child side: prints a progress line from a daemon thread while the counts move. */
    public static void report(AtomicLong handled, AtomicLong sqsRequests) {
        Thread reporter = new Thread(() -> {
            long lastHandled = -1;
            long lastRequests = -1;
            while (true) {
                long h = handled.get();
                long r = sqsRequests.get();
                if (h != lastHandled || r != lastRequests) {
                    System.out.println(PREFIX + h + " " + System.currentTimeMillis() + " " + Proc.ownCpuMillis() + " " + r);
                    lastHandled = h;
                    lastRequests = r;
                }
                try {
                    Thread.sleep(INTERVAL_MILLIS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "progress");
        reporter.setDaemon(true);
        reporter.start();
    }

    /**
     * Child side, as it exits: one JSON line with {@code fields}, its own CPU ({@code cpuMillis}) and its
     * CPU by thread ({@code threadCpuMillis}, as {@link Proc#threadCpuMillis} keys it), which /proc no
     * longer has once the process is gone.
     */
    public static void summary(Map<String, Object> fields) throws JsonProcessingException {
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("cpuMillis", Proc.ownCpuMillis());
        summary.putAll(fields);
        summary.put("threadCpuMillis", Proc.threadCpuMillis(ProcessHandle.current().pid()));
        System.out.println(new ObjectMapper().writeValueAsString(summary));
    }

    /** Harness side: follows a child's log and keeps its latest progress line. */
    public static final class Reader {

        private final Path log;
        private long offset;
        private String partial = "";
        private Mark latest;

        public Reader(Path log) {
            this.log = log;
        }

        /** The latest progress line so far, or null before the first. Reads only what was appended since. */
        public Mark latest() throws IOException {
            try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
                long length = file.length();
                if (length > offset) {
                    byte[] bytes = new byte[(int) (length - offset)];
                    file.seek(offset);
                    file.readFully(bytes);
                    offset = length;
                    String text = partial + new String(bytes, StandardCharsets.UTF_8);
                    int end = text.lastIndexOf('\n');
                    partial = text.substring(end + 1);
                    for (String line : text.substring(0, Math.max(0, end)).split("\n")) {
                        if (line.startsWith(PREFIX)) {
                            String[] f = line.substring(PREFIX.length()).trim().split(" ");
                            latest = new Mark(Long.parseLong(f[0]), Long.parseLong(f[1]), Double.parseDouble(f[2]),
                                    Long.parseLong(f[3]));
                        }
                    }
                }
            }
            return latest;
        }
    }
}
