package dev.txinbox.messaging.sqs;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionException;

import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkSystemSetting;
import software.amazon.awssdk.core.exception.SdkClientException;

/**
 * An SQS call that failed for want of usable AWS credentials: the SDK's default chain found none (IRSA's token
 * refused by STS, Pod Identity's endpoint refusing, nothing set up at all), or SQS refused the ones it had (expired,
 * unknown). Not an outage and not the message's fault: the callers back off as for an outage and count no attempt,
 * but say <em>credentials</em>, and which provider failed, so that an operator looks at the role and not at SQS.
 */
record CredentialsProblem(String reason, String signature) {

    /** Codes with which SQS (or STS, seen through the chain) refuses the caller's credentials, not its request. */
    private static final Set<String> REFUSED_CREDENTIALS = Set.of("ExpiredToken", "ExpiredTokenException",
            "InvalidClientTokenId", "UnrecognizedClientException", "InvalidAccessKeyId", "SignatureDoesNotMatch",
            "IncompleteSignature", "MissingAuthenticationToken", "InvalidSecurity", "InvalidIdentityToken",
            "IDPRejectedClaim", "IDPCommunicationError");

    /** The default chain's providers, in its order: where one's message ends in the chain's, the next begins. */
    private static final List<String> CHAIN = List.of("SystemPropertyCredentialsProvider",
            "EnvironmentVariableCredentialsProvider", "WebIdentityTokenFileCredentialsProvider",
            "ProfileCredentialsProvider", "ContainerCredentialsProvider", "InstanceProfileCredentialsProvider");

    static Optional<CredentialsProblem> of(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof CompletionException) {
                continue;
            }
            if (t instanceof SdkClientException && String.valueOf(t.getMessage()).startsWith("Unable to load credentials")) {
                return Optional.of(fromChain(t.getMessage()));
            }
            if (t instanceof AwsServiceException service && service.awsErrorDetails() != null
                    && REFUSED_CREDENTIALS.contains(service.awsErrorDetails().errorCode())) {
                String code = service.awsErrorDetails().errorCode();
                return Optional.of(new CredentialsProblem("SQS refused the AWS credentials (" + code + "): "
                        + service.awsErrorDetails().errorMessage(), "refused:" + code));
            }
        }
        return Optional.empty();
    }

    /**
     * The chain's message lists every provider's failure; the one that matters is the provider the pod is set up
     * for (the SDK's own variables say which), else none was set up at all.
     */
    private static CredentialsProblem fromChain(String message) {
        String provider = configuredProvider();
        if (provider == null) {
            return new CredentialsProblem("no AWS credentials: none of the SDK's default providers is set up"
                    + " (IRSA: AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE; EKS Pod Identity:"
                    + " AWS_CONTAINER_CREDENTIALS_FULL_URI; or static keys)", "none");
        }
        String said = failureOf(provider, message);
        return new CredentialsProblem("no AWS credentials: " + provider + " failed: " + said,
                provider + ":" + said.replaceAll("(?i)request id: [^,)]*|\\(SDK Attempt Count: \\d+\\)", ""));
    }

    private static String configuredProvider() {
        if (SdkSystemSetting.AWS_WEB_IDENTITY_TOKEN_FILE.getStringValue().isPresent()) {
            return "WebIdentityTokenFileCredentialsProvider (IRSA)";
        }
        if (SdkSystemSetting.AWS_CONTAINER_CREDENTIALS_FULL_URI.getStringValue().isPresent()
                || SdkSystemSetting.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI.getStringValue().isPresent()) {
            return "ContainerCredentialsProvider (EKS Pod Identity)";
        }
        return null;
    }

    private static String failureOf(String provider, String message) {
        String name = provider.substring(0, provider.indexOf(' '));
        int at = message.indexOf(name + "(", message.indexOf(": ["));
        if (at < 0) {
            return message;
        }
        int start = message.indexOf("): ", at);
        if (start < 0) {
            return message;
        }
        start += 3;
        int end = message.lastIndexOf(']');
        for (String next : CHAIN.subList(CHAIN.indexOf(name) + 1, CHAIN.size())) {
            int n = message.indexOf(", " + next + "(", start);
            if (n >= 0 && n < end) {
                end = n;
            }
        }
        return message.substring(start, end < start ? message.length() : end).trim();
    }
}
