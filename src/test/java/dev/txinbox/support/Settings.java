package dev.txinbox.support;

import java.time.Duration;

import dev.txinbox.config.TxinboxConfig;

/** Settings for tests that drive the inbox directly, without the service's configuration. */
public final class Settings {

    private Settings() {
    }

    public static TxinboxConfig.Retry retry(Duration base, Duration cap, int maxAttempts) {
        return new Retry(base, cap, maxAttempts);
    }

    // A named record, not an anonymous class: the constraints it inherits must not meet CDI's rules for those.
    private record Retry(Duration base, Duration cap, int maxAttempts) implements TxinboxConfig.Retry {
    }
}
