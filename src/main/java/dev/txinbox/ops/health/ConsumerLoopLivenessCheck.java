package dev.txinbox.ops.health;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.messaging.ConsumerProgress;
import dev.txinbox.messaging.DatabaseGate;
import dev.txinbox.messaging.sqs.SqsConnectivity;
import dev.txinbox.messaging.sqs.SqsInboxReceiver;
import dev.txinbox.messaging.sqs.SqsQueues;

/**
 * Liveness {@code consumer-loop}: DOWN when a consumer has made no progress, neither a poll nor a finished message,
 * for {@code txinbox.health.stall-after} (a stuck handler holds every worker and the channel stops fetching), or
 * when one of its receive loops ({@code mp.messaging.incoming.<name>.concurrency}) stopped polling while another
 * polls on: a dead or stuck loop of two leaves half the consumer's capacity silently gone, and the consumer's own
 * progress would hide it. When every loop is silent together, the backpressure of busy workers explains it, and
 * only the consumer's progress counts. Never DOWN for lag, nor while consumption waits on purpose for the database
 * or SQS to come back (readiness reports those): restarting would not help either. A channel that died shows in
 * SmallRye's own liveness check beside this one.
 */
@Liveness
@ApplicationScoped
public class ConsumerLoopLivenessCheck implements HealthCheck {

    private final Instant started = Instant.now();
    private final TxinboxConfig config;
    private final Config channels;
    private final SqsInboxReceiver receiver;
    private final SqsConnectivity connectivity;
    private final DatabaseGate databaseGate;
    private final SqsQueues queues;

    public ConsumerLoopLivenessCheck(TxinboxConfig config, Config channels, SqsInboxReceiver receiver,
            SqsConnectivity connectivity, DatabaseGate databaseGate, SqsQueues queues) {
        this.config = config;
        this.channels = channels;
        this.receiver = receiver;
        this.connectivity = connectivity;
        this.databaseGate = databaseGate;
        this.queues = queues;
    }

    @Override
    public HealthCheckResponse call() {
        Instant now = Instant.now();
        Duration stallAfter = config.health().stallAfter();
        boolean waitingOnPurpose = !databaseGate.isOpen() || !connectivity.reachable();
        HealthCheckResponseBuilder response = HealthCheckResponse.named("consumer-loop").up()
                .withData("databaseGate", databaseGate.isOpen() ? "open" : "paused for the database");
        for (var entry : config.runningConsumers().entrySet()) {
            String consumer = entry.getKey();
            // Without SQS calls: a probe must answer within its timeout even while SQS does not.
            Map<String, Instant> polls = new TreeMap<>(queues.knownUrl(entry.getValue().queue())
                    .map(connectivity::lastPolls).orElse(Map.of()));
            ConsumerProgress progress = receiver.progress(consumer);
            Instant last = Stream.concat(polls.values().stream(),
                    Stream.of(progress.lastTaken(), progress.lastFinished()).flatMap(Optional::stream))
                    .max(Instant::compareTo).orElse(started);
            long idle = Duration.between(last, now).toSeconds();
            response.withData(consumer + ".secondsSinceProgress", idle);
            polls.forEach((loop, at) -> response.withData(consumer + ".loop." + loop + ".secondsSincePoll",
                    Duration.between(at, now).toSeconds()));
            if (waitingOnPurpose) {
                continue;
            }
            if (idle > stallAfter.toSeconds()) {
                response.down().withData(consumer + ".down", "no poll and no finished message for " + idle + " s");
                continue;
            }
            silentLoop(polls, loops(consumer), now, stallAfter, started)
                    .ifPresent(why -> response.down().withData(consumer + ".down", why));
        }
        return response.build();
    }

    /**
     * Why one receive loop of a consumer counts as dead, if one does: it has not polled for {@code stallAfter}
     * while another loop did, or fewer loops than configured ever polled, that long after the start.
     */
    static Optional<String> silentLoop(Map<String, Instant> polls, int loops, Instant now, Duration stallAfter,
            Instant started) {
        Instant threshold = now.minus(stallAfter);
        Optional<Map.Entry<String, Instant>> polling = polls.entrySet().stream()
                .filter(poll -> poll.getValue().isAfter(threshold)).findFirst();
        if (polling.isEmpty()) {
            return Optional.empty();
        }
        for (var poll : polls.entrySet()) {
            if (!poll.getValue().isAfter(threshold)) {
                return Optional.of("receive loop " + poll.getKey() + " of " + Math.max(loops, polls.size())
                        + " has not polled for " + Duration.between(poll.getValue(), now).toSeconds() + " s while loop "
                        + polling.get().getKey() + " polls");
            }
        }
        if (polls.size() < loops && started.isBefore(threshold)) {
            return Optional.of("only " + polls.size() + " of " + loops + " receive loops ever polled (" + String.join(
                    ", ", polls.keySet()) + ")");
        }
        return Optional.empty();
    }

    /** How many receive loops the consumer's channel runs. */
    private int loops(String consumer) {
        return channels.getOptionalValue("mp.messaging.incoming." + consumer + ".concurrency", Integer.class)
                .orElse(1);
    }
}
