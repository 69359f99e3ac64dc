package dev.txinbox.messaging.sqs;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.txinbox.messaging.CallsInFlight;

/**
 * Whether SQS answers, as the receive loop last saw it, and how long to wait before asking again.
 * Readiness reports it; {@link ResilientSqsClient} acts on it.
 */
@ApplicationScoped
public class SqsConnectivity {

    private static final Logger LOG = Logger.getLogger(SqsConnectivity.class);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

    private int failures;
    private Instant unreachableSince;
    private Instant retryAt = Instant.EPOCH;
    private String lastError;
    /** The failure's kind and identity: a new one is logged, the same one again is not. */
    private String failureSignature;
    private boolean credentials;
    private boolean throttled;
    private final Map<String, Map<Object, Loop>> lastPolls = new ConcurrentHashMap<>();
    private boolean receiving = true;
    private final CallsInFlight receives = new CallsInFlight();

    public synchronized boolean reachable() {
        return failures == 0;
    }

    public synchronized String lastError() {
        return lastError;
    }

    /** Whether the last failure was for want of usable AWS credentials (see {@link CredentialsProblem}). */
    public synchronized boolean credentialsMissing() {
        return failures > 0 && credentials;
    }

    /** Why receives fail now: {@code credentials}, {@code throttled} or {@code unreachable} (null while they work). */
    public synchronized String cause() {
        return failures == 0 ? null : credentials ? "credentials" : throttled ? "throttled" : "unreachable";
    }

    /** The credentials problem the last call met, if that is why SQS cannot be called now. */
    synchronized Optional<String> credentialsProblem() {
        return credentialsMissing() ? Optional.of(lastError) : Optional.empty();
    }

    public synchronized Instant unreachableSince() {
        return unreachableSince;
    }

    /**
     * When each receive loop last asked this queue for messages, by the loop's number (1, 2 … in the order of their
     * first polls); empty before the first.
     */
    public Map<String, Instant> lastPolls(String queueUrl) {
        Map<Object, Loop> loops = lastPolls.get(queueUrl);
        Map<String, Instant> polls = new HashMap<>();
        if (loops != null) {
            loops.values().forEach(loop -> polls.put(loop.name, loop.lastPoll));
        }
        return polls;
    }

    /** Receive loop {@code loop} (its own {@link ReceiveRequestCustomizer}) asks {@code queueUrl} for messages. */
    void polled(String queueUrl, Object loop) {
        if (queueUrl == null) {
            return;
        }
        Map<Object, Loop> loops = lastPolls.computeIfAbsent(queueUrl, url -> new ConcurrentHashMap<>());
        Loop polls = loops.get(loop);
        if (polls == null) {
            synchronized (loops) {
                polls = loops.computeIfAbsent(loop, l -> new Loop(Integer.toString(loops.size() + 1)));
            }
        }
        polls.lastPoll = Instant.now();
    }

    private static final class Loop {
        final String name;
        volatile Instant lastPoll;

        Loop(String name) {
            this.name = name;
        }
    }

    /** How long a receive should wait before calling SQS again (zero when it may call now). */
    synchronized Duration waitBeforeCall() {
        Duration wait = Duration.between(Instant.now(), retryAt);
        return wait.isNegative() ? Duration.ZERO : wait;
    }

    synchronized void succeeded() {
        if (failures > 0) {
            LOG.infof(credentials ? "AWS credentials work again; SQS answers after %d s" : "SQS answers again after %d s",
                    Duration.between(unreachableSince, Instant.now()).toSeconds());
        }
        failures = 0;
        unreachableSince = null;
        lastError = null;
        failureSignature = null;
        credentials = false;
        throttled = false;
    }

    /**
     * From now on no receive asks SQS for messages, and messages that a receive already in flight brings
     * back are handed back to the queue (see {@link ResilientSqsClient}): the service is stopping.
     */
    public synchronized void stopReceiving() {
        receiving = false;
    }

    synchronized boolean receiving() {
        return receiving;
    }

    void receiveStarted() {
        receives.started();
    }

    void receiveEnded() {
        receives.ended();
    }

    /**
     * Waits until no receive is in flight (or {@code timeout} passes), so that the SQS client is not closed
     * under a long poll: a poll cut off there may already have taken messages, which SQS would then keep
     * invisible for a whole visibility timeout.
     */
    public boolean awaitNoReceives(Duration timeout) throws InterruptedException {
        return receives.awaitNone(timeout);
    }

    /** Records a failed call; returns how long to wait before the next one (1 s, 2 s, 4 s … 30 s). */
    synchronized Duration failed(Throwable error) {
        failures++;
        Optional<CredentialsProblem> problem = CredentialsProblem.of(error);
        credentials = problem.isPresent();
        lastError = problem.map(CredentialsProblem::reason).orElseGet(() -> SqsQueues.rootMessage(error));
        throttled = problem.isEmpty() && Throttling.throttled(error);
        String signature = problem.map(CredentialsProblem::signature).orElse(throttled ? "throttled" : "unreachable");
        if (unreachableSince == null) {
            unreachableSince = Instant.now();
        }
        if (!signature.equals(failureSignature)) {
            // Once per state, not once per poll: an outage, then each distinct credentials problem.
            failureSignature = signature;
            LOG.warnf(credentials ? "SQS cannot be called, %s; retrying with backoff until it can"
                    : throttled ? "SQS throttles the receives, backing off until it takes them again: %s"
                            : "SQS receive failed, retrying with backoff until it answers: %s", lastError);
        }
        Duration backoff = Duration.ofSeconds(1L << Math.min(failures - 1, 5));
        backoff = backoff.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff;
        retryAt = Instant.now().plus(backoff);
        return backoff;
    }
}
