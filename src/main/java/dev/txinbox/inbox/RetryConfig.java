package dev.txinbox.inbox;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

@ConfigMapping(prefix = "txinbox.retry")
public interface RetryConfig {

    /** Delay before the second attempt; doubles with every further attempt. */
    @WithDefault("1s")
    Duration base();

    /** Longest delay between two attempts. */
    @WithDefault("5m")
    Duration cap();
}
