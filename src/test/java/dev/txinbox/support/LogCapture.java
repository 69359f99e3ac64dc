package dev.txinbox.support;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.jboss.logmanager.ExtLogRecord;

/**
 * The service's log records while installed (the whole log, or one logger's), for tests that assert on what
 * was logged, or wait for a line as the proof that something happened.
 */
public final class LogCapture extends Handler implements AutoCloseable {

    /** One record: its level, logger, formatted message and whether it carried a stack trace. */
    public record Line(Level level, String logger, String message, boolean stackTrace) {

        public boolean atLeast(Level wanted) {
            return level.intValue() >= wanted.intValue();
        }

        @Override
        public String toString() {
            return level + " " + logger + ": " + message + (stackTrace ? " [with a stack trace]" : "");
        }
    }

    private final Logger logger;
    private final List<Line> lines = new CopyOnWriteArrayList<>();

    private LogCapture(Logger logger) {
        this.logger = logger;
        logger.addHandler(this);
    }

    /** Everything the service logs. */
    public static LogCapture all() {
        return new LogCapture(Logger.getLogger(""));
    }

    /** What one class logs. */
    public static LogCapture of(Class<?> type) {
        return new LogCapture(Logger.getLogger(type.getName()));
    }

    public List<Line> lines() {
        return List.copyOf(lines);
    }

    /** Whether a line holds every one of {@code parts}. */
    public boolean logged(String... parts) {
        return lines.stream().anyMatch(line -> Arrays.stream(parts).allMatch(line.message()::contains));
    }

    public String text() {
        return String.join("\n", lines.stream().map(Line::toString).toList());
    }

    @Override
    public void publish(LogRecord record) {
        String message = record instanceof ExtLogRecord ext ? ext.getFormattedMessage()
                : record.getMessage() + (record.getParameters() == null ? "" : " " + Arrays.toString(record.getParameters()));
        lines.add(new Line(record.getLevel(), record.getLoggerName(), message, record.getThrown() != null));
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
