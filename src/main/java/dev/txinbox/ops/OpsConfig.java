package dev.txinbox.ops;

import java.time.Duration;
import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Health thresholds, retention and the admin API: {@code txinbox.health.*}, {@code txinbox.retention.*} and {@code txinbox.admin.*}. */
public interface OpsConfig {

    @ConfigMapping(prefix = "txinbox.health")
    interface Health {

        /** How often the inbox statistics behind health and gauges are refreshed. */
        @WithDefault("5s")
        Duration refresh();

        /** Liveness turns DOWN when a consumer neither polled nor finished a message for this long. */
        @WithDefault("2m")
        Duration stallAfter();

        /** inbox-lag turns DOWN when the lag exceeds this. */
        @WithDefault("5m")
        Duration maxLag();

        /** inbox-lag turns DOWN when a parked event has waited longer than this. */
        @WithDefault("24h")
        Duration maxParkedAge();

        /** inbox-lag turns DOWN when more entries than this are FAILED (waiting for a retry). */
        @WithDefault("1000")
        long maxFailed();
    }

    @ConfigMapping(prefix = "txinbox.retention")
    interface Retention {

        /** PROCESSED, STALE and REJECTED rows older than this are deleted. Must exceed the queue's retention. */
        @WithDefault("14d")
        Duration processed();

        /** DEAD rows older than this are deleted. */
        @WithDefault("30d")
        Duration dead();

        /** How often the job runs. */
        @WithDefault("10m")
        String interval();

        /** Rows deleted per transaction. */
        @WithDefault("5000")
        int batchSize();
    }

    @ConfigMapping(prefix = "txinbox.admin")
    interface Admin {

        /** Bearer token of the admin API; without one every admin call is refused. */
        Optional<String> token();
    }
}
