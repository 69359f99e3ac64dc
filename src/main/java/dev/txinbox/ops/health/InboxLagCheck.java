package dev.txinbox.ops.health;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.ops.metrics.InboxStatistics;

/**
 * Readiness {@code inbox-lag}: whether the inbox keeps up, with the numbers behind it per consumer
 * (see docs/OPERATIONS.md, "Health"). DOWN only past the configured thresholds.
 */
@Readiness
@ApplicationScoped
public class InboxLagCheck implements HealthCheck {

    private final InboxStatistics statistics;
    private final TxinboxConfig.Health thresholds;

    public InboxLagCheck(InboxStatistics statistics, TxinboxConfig config) {
        this.statistics = statistics;
        this.thresholds = config.health();
    }

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder response = HealthCheckResponse.named("inbox-lag").up();
        for (InboxStatistics.ConsumerStats stats : statistics.latest().values()) {
            String prefix = stats.consumer() + ".";
            response.withData(prefix + "lagSeconds", Math.round(stats.lagSeconds()))
                    .withData(prefix + "oldestPendingAgeSeconds", Math.round(stats.oldestPendingAgeSeconds()))
                    .withData(prefix + "backlog", stats.backlog() == null ? -1 : stats.backlog())
                    .withData(prefix + "inFlight", stats.inFlight())
                    .withData(prefix + "parked", stats.parked())
                    .withData(prefix + "oldestParkedAgeSeconds", Math.round(stats.oldestParkedAgeSeconds()))
                    .withData(prefix + "failed", stats.failed())
                    .withData(prefix + "deadLetterQueue", stats.dlq() == null ? -1 : stats.dlq());
            String breach = breach(stats);
            if (breach != null) {
                response.down().withData(prefix + "down", breach);
            }
        }
        return response.build();
    }

    private String breach(InboxStatistics.ConsumerStats stats) {
        if (stats.lagSeconds() > thresholds.maxLag().toSeconds()) {
            return "lag " + Math.round(stats.lagSeconds()) + " s > " + thresholds.maxLag().toSeconds() + " s";
        }
        if (stats.oldestParkedAgeSeconds() > thresholds.maxParkedAge().toSeconds()) {
            return "a parked event waits for " + Math.round(stats.oldestParkedAgeSeconds()) + " s > "
                    + thresholds.maxParkedAge().toSeconds() + " s";
        }
        if (stats.failed() > thresholds.maxFailed()) {
            return stats.failed() + " failed entries > " + thresholds.maxFailed();
        }
        return null;
    }
}
