package dev.txinbox.ops.tracing;

import java.util.Collection;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.quarkus.arc.lookup.LookupIfProperty;

/**
 * Where spans go when no OTLP endpoint is configured: nowhere. Quarkus's OTLP exporter falls back to
 * {@code localhost:4317} when no endpoint is set, and a pod without a collector would log a failed export every few
 * seconds; Quarkus leaves its OTLP exporter out when another span exporter is present, so this one stands in,
 * discarding. It exists only while {@code quarkus.otel.exporter.otlp.endpoint} (from
 * {@code OTEL_EXPORTER_OTLP_ENDPOINT}, see application.properties) is unset. Spans are still made, so trace ids
 * still reach the logs, the inbox rows and the published messages.
 */
@ApplicationScoped
public class TraceExport {

    @Produces
    @ApplicationScoped
    @LookupIfProperty(name = "quarkus.otel.exporter.otlp.endpoint", stringValue = "", lookupIfMissing = true)
    SpanExporter noEndpointNoExport() {
        return new SpanExporter() {
            @Override
            public CompletableResultCode export(Collection<SpanData> spans) {
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode flush() {
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode shutdown() {
                return CompletableResultCode.ofSuccess();
            }
        };
    }
}
