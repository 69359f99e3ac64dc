package dev.txinbox.messaging.sqs;

import java.util.Set;
import java.util.concurrent.CompletionException;

import software.amazon.awssdk.awscore.exception.AwsServiceException;

/**
 * Whether SQS refused a call for its rate (the queue's per-action quota, a message group's, or the KMS key's behind
 * an encrypted queue), after the SDK's own retries. Never the message's fault and never an outage of SQS: the callers
 * back off and count no attempt; {@code txinbox_sqs_throttled_total{call}} counts it.
 */
final class Throttling {

    private static final Set<String> CODES = Set.of("ThrottlingException", "Throttling", "RequestThrottled",
            "KmsThrottled", "KMS.ThrottlingException", "TooManyRequestsException");

    private Throttling() {
    }

    /** Whether an error code (a batch entry's, say) is one of the rate's. */
    static boolean throttlingCode(String code) {
        return code != null && CODES.contains(code);
    }

    static boolean throttled(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof CompletionException) {
                continue;
            }
            if (t instanceof AwsServiceException service) {
                return service.isThrottlingException() || (service.awsErrorDetails() != null
                        && CODES.contains(service.awsErrorDetails().errorCode()));
            }
        }
        return false;
    }
}
