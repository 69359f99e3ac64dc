package dev.txinbox.ops.health;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.outbox.EmbeddedRelay;
import dev.txinbox.outbox.OutboxRelay;
import dev.txinbox.ops.metrics.OutboxStatistics;

/**
 * Readiness {@code outbox} (CONTRACT §6): pending events and the oldest one's age, as {@code inbox-lag} reports the
 * inbox. DOWN when the oldest pending event is older than {@code txinbox.outbox.max-pending-age}, or when the queue
 * cannot be used (missing, access denied) or the pod has no usable AWS credentials, with the reason. A broker outage is reported but left to the {@code sqs}
 * check and the age threshold; so is a listener without its connection (other pods' commits then wait for the
 * relay's poll). With the relay disabled there is nothing to judge: UP, "relay disabled".
 */
@Readiness
@ApplicationScoped
public class OutboxReadinessCheck implements HealthCheck {

    private final EmbeddedRelay relay;
    private final OutboxStatistics statistics;
    private final TxinboxConfig.Outbox config;

    public OutboxReadinessCheck(EmbeddedRelay relay, OutboxStatistics statistics, TxinboxConfig config) {
        this.relay = relay;
        this.statistics = statistics;
        this.config = config.outbox();
    }

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder response = HealthCheckResponse.named("outbox").up();
        if (!relay.enabled()) {
            return response.withData("relay", "disabled").build();
        }
        OutboxStatistics.Pending pending = statistics.latest();
        response.withData("queue", config.queue())
                .withData("pending", pending.pending())
                .withData("oldestPendingAgeSeconds", Math.round(pending.oldestPendingSeconds()))
                .withData("waitingStreams", pending.waitingStreams());
        relay.relay().ifPresent(r -> {
            OutboxRelay.State state = r.state();
            response.withData("relay", state.publishing().name().toLowerCase())
                    .withData("ownedPartitions", state.owned().size());
            if (state.error() != null) {
                response.withData("error", state.error()).withData("since", state.since().toString());
            }
            if (state.publishing() == OutboxRelay.Publishing.CONFIGURATION) {
                response.down().withData("down", "queue " + config.queue() + " cannot be used: " + state.error());
            }
            if (state.publishing() == OutboxRelay.Publishing.CREDENTIALS) {
                response.down().withData("down", "cannot publish to " + config.queue() + ": " + state.error());
            }
        });
        // Not a reason for DOWN: without it, what other pods commit for this one's partitions waits for the poll.
        relay.listener().ifPresent(l -> response.withData("listener", l.listening() ? "listening" : "reconnecting"));
        if (pending.oldestPendingSeconds() > config.maxPendingAge().toSeconds()) {
            response.down().withData("down", "the oldest pending event waits for "
                    + Math.round(pending.oldestPendingSeconds()) + " s > " + config.maxPendingAge().toSeconds() + " s");
        }
        return response.build();
    }
}
