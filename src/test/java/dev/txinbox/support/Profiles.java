package dev.txinbox.support;

import java.util.HashMap;
import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * The test profiles other than the default one. Each profile is a boot of its own (augmentation, Flyway's clean and
 * migration, the broker's queues), so tests whose settings do not meet share one: every setting of a profile below is
 * one that a pod may be given, and none of them changes what another test of the same profile checks.
 */
public final class Profiles {

    private Profiles() {
    }

    /**
     * The whole chain (the notifications consumer switched on, {@link ElasticMqResource#chained()}), spans captured and
     * a trace view for the console: {@code ChainedOutboxTest}, {@code TracingTest}.
     */
    public static class ChainTraced implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> settings = new HashMap<>(ElasticMqResource.chained());
            settings.put("test.tracing", "true");
            settings.put("txinbox.console.trace-url-template", "https://traces.example/trace/{traceId}?from=txinbox");
            return settings;
        }
    }

    /**
     * What an operator may switch off or tighten: no admin token, a parked event's age of 1 s for readiness, the
     * tracing SDK off as a pod's environment would switch it off ({@code OTEL_SDK_DISABLED}), and the embedded relay
     * off (another publisher, such as Debezium, reads the table): {@code StrictSettingsTest},
     * {@code TracingDisabledTest}, {@code OutboxRelayDisabledTest}.
     */
    public static class SwitchedOff implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("txinbox.admin.token", "", "txinbox.health.max-parked-age", "1s",
                    "OTEL_SDK_DISABLED", "true",
                    "txinbox.outbox.relay.enabled", "false");
        }
    }

    /**
     * Sampling by the SDK's standard variables, as the manifests show ({@code parentbased_traceidratio} with a ratio
     * of 0), spans captured, and the outbox as shipped, with no published history kept (the relay deletes what it
     * publishes; the other profiles keep it, to read what the relay did): {@code TracingSampledTest},
     * {@code OutboxDeleteOnPublishTest}.
     */
    public static class SampledAndDeleteOnPublish implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("test.tracing", "true",
                    "OTEL_TRACES_SAMPLER", "parentbased_traceidratio",
                    "OTEL_TRACES_SAMPLER_ARG", "0",
                    "txinbox.outbox.keep-published", "false");
        }
    }
}
