package dev.txinbox.ops.console;

import java.time.Instant;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * The console's notion of now: the minute a sample belongs to, a session's expiry, a sign-in lock. A bean of
 * its own (not a {@link java.time.Clock} producer) so that a test can swap it and walk through minutes of
 * traffic without waiting for them.
 */
@ApplicationScoped
public class ConsoleClock {

    public Instant now() {
        return Instant.now();
    }
}
