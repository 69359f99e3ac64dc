package dev.txinbox.support;

import java.time.Duration;
import java.util.Optional;

import dev.txinbox.config.TxinboxConfig;

/** Settings for tests that drive the inbox or a relay directly, without the service's configuration. */
public final class Settings {

    private Settings() {
    }

    public static TxinboxConfig.Retry retry(Duration base, Duration cap, int maxAttempts) {
        return new Retry(base, cap, maxAttempts);
    }

    /**
     * {@code outbox}'s settings with the relay's poll and its partition claims an hour apart, so that nothing but a
     * commit's wake-up (or the end of a backoff) makes a relay built with them look.
     */
    public static TxinboxConfig.Outbox notPolling(TxinboxConfig.Outbox outbox) {
        TxinboxConfig.Relay relay = outbox.relay();
        return new Outbox(outbox.queue(), outbox.partitions(), outbox.keepPublished(), outbox.retention(),
                outbox.retentionBatchSize(),
                outbox.maxPendingAge(), new Relay(relay.enabled(), Duration.ofHours(1), Duration.ofHours(1),
                        relay.retryBase(), relay.retryCap(), relay.maxMessageBytes()));
    }

    // Named records, not anonymous classes: the constraints they inherit must not meet CDI's rules for those.
    private record Retry(Duration base, Duration cap, int maxAttempts) implements TxinboxConfig.Retry {
    }

    private record Outbox(String queue, int partitions, boolean keepPublished, Duration retention, int retentionBatchSize,
            Duration maxPendingAge, TxinboxConfig.Relay relay) implements TxinboxConfig.Outbox {
    }

    private record Relay(boolean enabled, Duration pollInterval, Duration claimInterval, Duration retryBase,
            Duration retryCap, int maxMessageBytes) implements TxinboxConfig.Relay {

        @Override
        public Optional<String> jdbcUrl() {
            return Optional.empty();
        }
    }
}
