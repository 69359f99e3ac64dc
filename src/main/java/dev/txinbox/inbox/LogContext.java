package dev.txinbox.inbox;

import org.jboss.logging.MDC;

/**
 * The identity every log line about one message or event carries in the MDC, so that a log search by trace id or
 * event id finds each line of it, in this service and the next: the consumer, the event id, the SQS message id and
 * the trace id. Absent values are removed, not left over from an earlier message on the same thread.
 * {@code try (LogContext ignored = LogContext.of(...)) { LOG... }}.
 */
public final class LogContext implements AutoCloseable {

    public static final String CONSUMER = "consumer";
    public static final String EVENT_ID = "eventId";
    public static final String MESSAGE_ID = "sqsMessageId";
    public static final String TRACE_ID = "traceId";

    private static final LogContext OPEN = new LogContext();

    private LogContext() {
    }

    /** Puts the identity in this thread's MDC until {@link #close}; any value may be null. */
    public static LogContext of(String consumer, String eventId, String messageId, String traceId) {
        put(CONSUMER, consumer);
        put(EVENT_ID, eventId);
        put(MESSAGE_ID, messageId);
        put(TRACE_ID, traceId);
        return OPEN;
    }

    /** Removes the identity from this thread's MDC. */
    public static void clear() {
        MDC.remove(CONSUMER);
        MDC.remove(EVENT_ID);
        MDC.remove(MESSAGE_ID);
        MDC.remove(TRACE_ID);
    }

    @Override
    public void close() {
        clear();
    }

    private static void put(String key, String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }
}
