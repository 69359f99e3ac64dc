package dev.txinbox.inbox;

/** The W3C {@code traceparent} text that messages carry and inbox rows keep: {@code 00-<trace id>-<span id>-<flags>}. */
public final class TraceParent {

    private static final String INVALID_TRACE_ID = "00000000000000000000000000000000";

    private TraceParent() {
    }

    /** The {@code traceparent} of a span: version 00, its trace id, span id and flags (two hex digits). */
    public static String of(String traceId, String spanId, String flagsHex) {
        return "00-" + traceId + "-" + spanId + "-" + flagsHex;
    }

    /** The trace id of a well-formed {@code traceparent} (32 lower-case hex digits, not all zero), or null. */
    public static String traceId(String traceparent) {
        if (traceparent == null || traceparent.length() < 55 || traceparent.charAt(2) != '-'
                || traceparent.charAt(35) != '-') {
            return null;
        }
        for (int i = 3; i < 35; i++) {
            char c = traceparent.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return null;
            }
        }
        String traceId = traceparent.substring(3, 35);
        return INVALID_TRACE_ID.equals(traceId) ? null : traceId;
    }
}
