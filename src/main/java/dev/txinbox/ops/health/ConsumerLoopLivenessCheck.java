package dev.txinbox.ops.health;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.stream.Stream;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.messaging.ConsumerProgress;
import dev.txinbox.messaging.DatabaseGate;
import dev.txinbox.messaging.sqs.SqsInboxReceiver;
import dev.txinbox.messaging.sqs.SqsConnectivity;
import dev.txinbox.messaging.sqs.SqsQueues;

/**
 * Liveness {@code consumer-loop}: DOWN when the receive loop has made no progress, neither a poll nor
 * a finished message, for {@code txinbox.health.stall-after} (a stuck handler holds every worker and
 * the channel stops fetching). Never DOWN for lag, nor while consumption waits on purpose for the
 * database or SQS to come back (readiness reports those): restarting would not help either. A channel that died shows in SmallRye's
 * own liveness check beside this one.
 */
@Liveness
@ApplicationScoped
public class ConsumerLoopLivenessCheck implements HealthCheck {

    private final Instant started = Instant.now();
    private final TxinboxConfig config;
    private final SqsInboxReceiver receiver;
    private final SqsConnectivity connectivity;
    private final DatabaseGate databaseGate;
    private final SqsQueues queues;

    public ConsumerLoopLivenessCheck(TxinboxConfig config, SqsInboxReceiver receiver, SqsConnectivity connectivity,
            DatabaseGate databaseGate, SqsQueues queues) {
        this.queues = queues;
        this.config = config;
        this.receiver = receiver;
        this.connectivity = connectivity;
        this.databaseGate = databaseGate;
    }

    /** Without SQS calls: a probe must answer within its timeout even while SQS does not. */
    private Optional<Instant> lastPoll(String queue) {
        return queues.knownUrl(queue).map(connectivity::lastPoll);
    }

    @Override
    public HealthCheckResponse call() {
        Instant now = Instant.now();
        HealthCheckResponseBuilder response = HealthCheckResponse.named("consumer-loop").up()
                .withData("databaseGate", databaseGate.isOpen() ? "open" : "paused for the database");
        for (var entry : config.runningConsumers().entrySet()) {
            String consumer = entry.getKey();
            ConsumerProgress progress = receiver.progress(consumer);
            Instant last = Stream.of(lastPoll(entry.getValue().queue()), progress.lastTaken(),
                    progress.lastFinished()).flatMap(Optional::stream).max(Instant::compareTo).orElse(started);
            long idle = Duration.between(last, now).toSeconds();
            response.withData(consumer + ".secondsSinceProgress", idle);
            if (databaseGate.isOpen() && connectivity.reachable() && idle > config.health().stallAfter().toSeconds()) {
                response.down().withData(consumer + ".down", "no poll and no finished message for " + idle + " s");
            }
        }
        return response.build();
    }
}
