package dev.txinbox.messaging;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;

/** A message's span and what it gives the inbox, the outbox and the logs; {@link #NONE} when untraced. */
record MessageSpan(Span span, Context context, String traceparent, String traceId) {

    static final MessageSpan NONE = new MessageSpan(Span.getInvalid(), null, null, null);
}
