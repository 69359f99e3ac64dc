package dev.txinbox.ops.health;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

import dev.txinbox.messaging.sqs.SqsConnectivity;
import dev.txinbox.ops.metrics.InboxStatistics;

/**
 * Readiness {@code sqs}: DOWN while receives fail, or while the last queue-depth call (made every few
 * seconds by {@link InboxStatistics}) failed. The service keeps polling with backoff meanwhile. {@code cause} says
 * whether SQS is unreachable, throttles the receives, or the pod has no usable AWS credentials; {@code error}
 * says why, naming the credentials provider that failed (IRSA's web identity, EKS Pod Identity's endpoint).
 */
@Readiness
@ApplicationScoped
public class SqsReadinessCheck implements HealthCheck {

    private final SqsConnectivity connectivity;
    private final InboxStatistics statistics;

    public SqsReadinessCheck(SqsConnectivity connectivity, InboxStatistics statistics) {
        this.connectivity = connectivity;
        this.statistics = statistics;
    }

    @Override
    public HealthCheckResponse call() {
        boolean queuesAnswer = statistics.latest().values().stream().allMatch(InboxStatistics.ConsumerStats::sqsReachable);
        boolean up = connectivity.reachable() && queuesAnswer;
        HealthCheckResponseBuilder response = HealthCheckResponse.named("sqs").status(up);
        if (!connectivity.reachable()) {
            response.withData("cause", connectivity.cause())
                    .withData("error", String.valueOf(connectivity.lastError()))
                    .withData("unreachableSince", String.valueOf(connectivity.unreachableSince()));
        } else if (!queuesAnswer) {
            response.withData("error", "queue attributes could not be read");
        }
        return response.build();
    }
}
