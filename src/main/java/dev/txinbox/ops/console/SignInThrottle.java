package dev.txinbox.ops.console;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import dev.txinbox.config.TxinboxConfig;

/**
 * Slows down guessing the admin token through the sign-in form: a refused sign-in is answered late,
 * {@code failed-sign-in-delay} after the first refusal and twice as long after every further one in a row
 * (up to {@link #MAX_WAIT}), without holding a thread; and the same client (by address) is not even heard
 * again until as long again after that answer. A success forgets the client.
 * <p>
 * By address, so clients behind one proxy share a wait (enable the proxy's forwarded headers in Quarkus to
 * tell them apart). In memory: each instance slows its own callers, which bounds the guesses per instance.
 */
@ApplicationScoped
public class SignInThrottle {

    static final Duration MAX_WAIT = Duration.ofSeconds(30);
    /** Refusals older than this no longer count towards the next wait. */
    private static final Duration FORGET_AFTER = Duration.ofMinutes(15);
    /** Bounds the memory a flood of addresses can take; the longest-quiet ones go first. */
    private static final int MAX_CLIENTS = 10_000;

    private record Refusals(int inARow, Instant last, Instant waitUntil) {
    }

    private final Map<String, Refusals> clients = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Refusals> eldest) {
            return size() > MAX_CLIENTS;
        }
    };
    private final Duration delay;
    private final ConsoleClock clock;

    @Inject
    public SignInThrottle(TxinboxConfig config, ConsoleClock clock) {
        this(config.console().failedSignInDelay(), clock);
    }

    SignInThrottle(Duration delay, ConsoleClock clock) {
        this.delay = delay;
        this.clock = clock;
    }

    /** How long this client must still wait before trying again; zero when it may try now. */
    public synchronized Duration waitFor(String client) {
        Refusals refusals = clients.get(client);
        if (refusals == null) {
            return Duration.ZERO;
        }
        Duration left = Duration.between(clock.now(), refusals.waitUntil());
        return left.isNegative() ? Duration.ZERO : left;
    }

    /** Records a refusal; returns how long to hold back the answer (and the client's next attempt). */
    public synchronized Duration refused(String client) {
        Instant now = clock.now();
        Refusals before = clients.get(client);
        int inARow = before == null || before.last().plus(FORGET_AFTER).isBefore(now) ? 1 : before.inARow() + 1;
        Duration wait = delay.multipliedBy(1L << Math.min(inARow - 1, 20));
        if (wait.compareTo(MAX_WAIT) > 0) {
            wait = MAX_WAIT;
        }
        // Locked for as long again after the late answer, so that the answer itself does not end the wait.
        clients.put(client, new Refusals(inARow, now, now.plus(wait).plus(wait)));
        return wait;
    }

    public synchronized void succeeded(String client) {
        clients.remove(client);
    }
}
