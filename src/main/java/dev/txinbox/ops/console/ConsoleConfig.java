package dev.txinbox.ops.console;

import java.time.Duration;
import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** The operator console: {@code txinbox.console.*}. It opens with the admin token ({@code txinbox.admin.token}). */
@ConfigMapping(prefix = "txinbox.console")
public interface ConsoleConfig {

    /** How long a session lasts after sign-in; signing out ends it earlier. */
    @WithDefault("8h")
    Duration sessionLifetime();

    /**
     * A refused sign-in is answered after this delay, and the same client is not heard again for as long after
     * the answer; every further refusal in a row doubles it, up to 30 s.
     */
    @WithDefault("1s")
    Duration failedSignInDelay();

    /** How often the overview's plots sample the outcome counters and the lag (a Quarkus duration such as 10s). */
    @WithDefault("10s")
    String sampleEvery();

    /**
     * Whether the session cookie is marked Secure. Unset: when the request came over TLS (as the service sees
     * it). Set true behind a proxy that terminates TLS and forwards plain HTTP without forwarded headers.
     */
    Optional<Boolean> secureCookie();
}
