package dev.txinbox.support;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.quarkus.arc.properties.IfBuildProperty;

/**
 * The SDK's in-memory exporter as the service's span exporter, in the tests that switch it on
 * ({@code test.tracing=true}, see {@code TracingTest}): Quarkus exports every ended span to each SpanExporter bean,
 * so the test reads what a collector would have received. Only there, because it keeps every span.
 */
@ApplicationScoped
public class SpanCapture {

    @Produces
    @Singleton
    @IfBuildProperty(name = "test.tracing", stringValue = "true")
    InMemorySpanExporter spans() {
        return InMemorySpanExporter.create();
    }
}
