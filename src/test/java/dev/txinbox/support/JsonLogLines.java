package dev.txinbox.support;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.logging.json.runtime.JsonFormatter;

/**
 * The lines one logger writes, as the pod's JSON console formats them: formatted as they are logged, on the logging
 * thread, so each carries that thread's MDC. {@code try (JsonLogLines lines = JsonLogLines.of(Some.class)) {...}}.
 */
public final class JsonLogLines implements AutoCloseable {

    private final Logger logger;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Handler handler;
    private final ObjectMapper json = new ObjectMapper();

    private JsonLogLines(Logger logger) {
        this.logger = logger;
        JsonFormatter formatter = new JsonFormatter();
        this.handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                lines.add(formatter.format(record));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(handler);
    }

    public static JsonLogLines of(Class<?> loggingClass) {
        return new JsonLogLines(Logger.getLogger(loggingClass.getName()));
    }

    /** The first line containing every one of {@code parts}, parsed; null while there is none. */
    public JsonNode first(String... parts) {
        for (String line : lines) {
            if (List.of(parts).stream().allMatch(line::contains)) {
                try {
                    return json.readTree(line);
                } catch (JsonProcessingException e) {
                    throw new AssertionError("not a JSON line: " + line, e);
                }
            }
        }
        return null;
    }

    @Override
    public void close() {
        logger.removeHandler(handler);
    }
}
