package dev.txinbox.messaging;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import dev.txinbox.inbox.InboxResult;
import dev.txinbox.inbox.LogContext;
import dev.txinbox.inbox.Outcome;
import dev.txinbox.inbox.TraceParent;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;

/**
 * The spans of received messages (docs/DESIGN.md, "Traces"). Each message gets a CONSUMER span whose parent is the
 * producer's context, read from the message's {@code traceparent} attribute (or, failing that, its
 * {@code AWSTraceHeader} system attribute, when the propagators understand it). A batch's transaction is a span of
 * its own: a span has one parent, and a message's belongs to its producer, so the two are joined by links (the
 * batch links to each message's producer context, each message links to its batch).
 * <p>
 * The sampler decides as everywhere: for a message it does not sample, the SDK hands back a non-recording span
 * that still carries the trace id (for the logs, the inbox row and the outbox), and no attribute is computed for it.
 */
@ApplicationScoped
public class MessageTracing {


    static final AttributeKey<String> CONSUMER = AttributeKey.stringKey("txinbox.consumer");
    static final AttributeKey<String> EVENT_ID = AttributeKey.stringKey("txinbox.event_id");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("txinbox.outcome");
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("txinbox.attempt");
    static final AttributeKey<Long> BATCH_SIZE = AttributeKey.longKey("txinbox.batch.size");
    private static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    private static final AttributeKey<String> OPERATION = AttributeKey.stringKey("messaging.operation.type");
    private static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    private static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    private static final AttributeKey<String> GROUP_ID = AttributeKey.stringKey("messaging.message.group_id");
    private static final AttributeKey<String> DETAIL = AttributeKey.stringKey("txinbox.detail");

    private static final String TRACEPARENT = "traceparent";
    private static final String AWS_TRACE_HEADER = "AWSTraceHeader";

    /** Reads the two carriers of a producer's context straight from the delivery, copying nothing. */
    private static final TextMapGetter<Delivery> FROM_DELIVERY = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Delivery delivery) {
            return List.of(TRACEPARENT, AWS_TRACE_HEADER);
        }

        @Override
        public String get(Delivery delivery, String key) {
            if (delivery == null) {
                return null;
            }
            if (TRACEPARENT.equals(key)) {
                return delivery.traceparent();
            }
            // The X-Ray propagator asks for its HTTP header name; SQS carries the same value as a system attribute.
            return "X-Amzn-Trace-Id".equalsIgnoreCase(key) || AWS_TRACE_HEADER.equals(key)
                    ? delivery.awsTraceHeader()
                    : null;
        }
    };

    private final Tracer tracer;
    private final TextMapPropagator propagator;

    /**
     * With the SDK disabled ({@code OTEL_SDK_DISABLED=true}) Quarkus's OpenTelemetry still makes and samples every
     * span, only exports none: the no-op tracer makes none, and a message keeps its producer's context, so the
     * producer's trace id still reaches the row, the logs and the outbox.
     */
    public MessageTracing(OpenTelemetry openTelemetry,
            @ConfigProperty(name = "quarkus.otel.sdk.disabled", defaultValue = "false") boolean sdkDisabled) {
        this.tracer = (sdkDisabled ? OpenTelemetry.noop() : openTelemetry).getTracer("dev.txinbox");
        this.propagator = openTelemetry.getPropagators().getTextMapPropagator();
    }

    /**
     * Starts the span of a batch's transaction (its passes and commit), linked to the producers of its messages, and
     * the span of each message, a child of its producer's context and linked to the batch, which each item keeps.
     * Each producer's context is read once. Returns the batch's span.
     */
    Span start(String consumer, List<BatchItem> items) {
        Context[] parents = new Context[items.size()];
        SpanBuilder builder = tracer.spanBuilder("txinbox batch " + consumer).setSpanKind(SpanKind.INTERNAL)
                .setNoParent().setAttribute(CONSUMER, consumer).setAttribute(BATCH_SIZE, (long) items.size());
        for (int i = 0; i < parents.length; i++) {
            Delivery delivery = items.get(i).delivery;
            if (delivery.traceparent() == null && delivery.awsTraceHeader() == null) {
                parents[i] = Context.root();
                continue;
            }
            parents[i] = propagator.extract(Context.root(), delivery, FROM_DELIVERY);
            SpanContext producer = Span.fromContext(parents[i]).getSpanContext();
            if (producer.isValid() && producer.isSampled()) {
                builder.addLink(producer);
            }
        }
        Span batch = builder.startSpan();
        for (int i = 0; i < parents.length; i++) {
            BatchItem item = items.get(i);
            item.traced = message(consumer, item.delivery, parents[i], batch);
        }
        return batch;
    }

    /** Starts the span of one message, a child of its producer's context and linked to its batch. */
    private MessageSpan message(String consumer, Delivery delivery, Context parent, Span batch) {
        SpanBuilder builder = tracer.spanBuilder(delivery.queue() + " process").setSpanKind(SpanKind.CONSUMER)
                .setParent(parent);
        SpanContext batchContext = batch.getSpanContext();
        if (batchContext.isValid() && batchContext.isSampled()) {
            builder.addLink(batchContext);
        }
        Span span = builder.startSpan();
        SpanContext context = span.getSpanContext();
        if (!context.isValid()) {
            // Tracing is off: still carry the producer's trace id, so that the logs and the row keep it.
            return delivery.traceparent() == null ? MessageSpan.NONE
                    : new MessageSpan(span, null, delivery.traceparent(), TraceParent.traceId(delivery.traceparent()));
        }
        if (span.isRecording()) {
            span.setAttribute(SYSTEM, "aws_sqs").setAttribute(OPERATION, "process")
                    .setAttribute(DESTINATION, delivery.queue()).setAttribute(MESSAGE_ID, delivery.messageId())
                    .setAttribute(CONSUMER, consumer)
                    .setAttribute(ATTEMPT, (long) delivery.receiveCount());
            if (delivery.groupId() != null) {
                span.setAttribute(GROUP_ID, delivery.groupId());
            }
            if (delivery.eventIdAttribute() != null) {
                span.setAttribute(EVENT_ID, delivery.eventIdAttribute());
            }
        }
        return new MessageSpan(span, parent.with(span), traceparent(context), context.getTraceId());
    }

    /**
     * Ends a message's span with its outcome: a failed attempt and a dead letter end in error, a parked event says
     * why it waits. The detail is the inbox's own text (an error, a reason), never the payload.
     */
    void end(MessageSpan traced, InboxResult result, Outcome outcome) {
        Span span = traced.span();
        if (span.isRecording()) {
            span.setAttribute(OUTCOME, outcome.label());
            if (result.eventId() != null) {
                span.setAttribute(EVENT_ID, result.eventId());
            }
            if (result.attempts() > 0) {
                span.setAttribute(ATTEMPT, (long) result.attempts());
            }
            switch (outcome) {
                case RETRIED -> {
                    if (result.heldBack()) {
                        span.addEvent("held back", Attributes.of(DETAIL,
                                String.valueOf(result.detail())));
                    } else {
                        span.setStatus(StatusCode.ERROR, result.attempts() > 0 ? "attempt " + result.attempts()
                                + " failed" : "not settled");
                        span.addEvent("attempt failed", Attributes.of(DETAIL,
                                String.valueOf(result.detail())));
                    }
                }
                case DEAD_LETTERED -> {
                    span.setStatus(StatusCode.ERROR, "dead-lettered");
                    span.addEvent("dead-lettered", Attributes.of(DETAIL,
                            String.valueOf(result.detail())));
                }
                case PARKED -> span.addEvent("parked", Attributes.of(DETAIL,
                        String.valueOf(result.detail())));
                case REJECTED, CONFLICT -> span.addEvent(outcome.label(),
                        Attributes.of(DETAIL, String.valueOf(result.detail())));
                default -> {
                }
            }
        }
        span.end();
    }

    /** Puts a message's identity in the MDC: every line logged until {@link LogContext#clear} carries it. */
    static void putMdc(String consumer, Delivery delivery, String eventId, MessageSpan traced) {
        LogContext.of(consumer, eventId, delivery.messageId(), traced == null ? null : traced.traceId());
    }

    /** W3C {@code traceparent} of a span context: version 00, trace id, span id, flags. */
    private static String traceparent(SpanContext context) {
        return TraceParent.of(context.getTraceId(), context.getSpanId(), context.getTraceFlags().asHex());
    }
}
