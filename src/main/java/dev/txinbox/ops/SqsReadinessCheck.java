package dev.txinbox.ops;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

import dev.txinbox.messaging.SqsConnectivity;

/** Readiness: DOWN while SQS receives fail (the service keeps polling with backoff and resumes by itself). */
@Readiness
@ApplicationScoped
public class SqsReadinessCheck implements HealthCheck {

    private final SqsConnectivity connectivity;

    public SqsReadinessCheck(SqsConnectivity connectivity) {
        this.connectivity = connectivity;
    }

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder response = HealthCheckResponse.named("sqs").status(connectivity.reachable());
        if (!connectivity.reachable()) {
            response.withData("error", String.valueOf(connectivity.lastError()))
                    .withData("unreachableSince", String.valueOf(connectivity.unreachableSince()));
        }
        return response.build();
    }
}
