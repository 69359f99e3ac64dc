package dev.txinbox.messaging.sqs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import jakarta.enterprise.context.ApplicationScoped;

import dev.txinbox.outbox.OutboxPublisher;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.BatchEntryIdsNotDistinctException;
import software.amazon.awssdk.services.sqs.model.BatchRequestTooLongException;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.InvalidBatchEntryIdException;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.TooManyEntriesInBatchRequestException;

/**
 * The outbox relay's SQS side: one {@code SendMessageBatch} per call, answered asynchronously, and every failure sorted into the class the
 * relay handles it by (outage, missing credentials, configuration, refused request).
 */
@ApplicationScoped
public class SqsOutboxPublisher implements OutboxPublisher {

    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    private final SqsAsyncClient client;
    private final SqsConnectivity connectivity;
    /**
     * The queue URLs, looked up once. The lookup in flight is kept: the client retries a lookup until SQS answers,
     * and a relay asking again every round during an outage would start one more such lookup each time.
     */
    private final Map<String, CompletableFuture<String>> urls = new ConcurrentHashMap<>();

    public SqsOutboxPublisher(SqsAsyncClient client, SqsConnectivity connectivity) {
        this.client = client;
        this.connectivity = connectivity;
    }

    @Override
    public CompletableFuture<List<Refusal>> send(String queue, List<Message> messages) {
        String url = url(queue);
        List<SendMessageBatchRequestEntry> entries = new ArrayList<>(messages.size());
        for (Message message : messages) {
            Map<String, MessageAttributeValue> attributes = new HashMap<>();
            message.attributes().forEach((k, v) -> attributes.put(k,
                    MessageAttributeValue.builder().dataType("String").stringValue(v).build()));
            entries.add(SendMessageBatchRequestEntry.builder().id(message.entryId()).messageGroupId(message.groupId())
                    .messageDeduplicationId(message.deduplicationId()).messageBody(message.body())
                    .messageAttributes(attributes).build());
        }
        return client.sendMessageBatch(r -> r.queueUrl(url).entries(entries))
                .orTimeout(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .handle((response, failed) -> {
                    if (failed != null) {
                        PublishException e = failure(failed);
                        if (e.failure() == Failure.CONFIGURATION) {
                            urls.remove(queue);
                        }
                        throw e;
                    }
                    List<Refusal> refusals = new ArrayList<>();
                    for (BatchResultErrorEntry refused : response.failed()) {
                        refusals.add(new Refusal(refused.id(), refused.code() + ": " + refused.message(),
                                Boolean.TRUE.equals(refused.senderFault())));
                    }
                    return refusals;
                });
    }

    @Override
    public void probe(String queue) {
        String url = url(queue);
        try {
            await(client.getQueueAttributes(r -> r.queueUrl(url).attributeNames(QueueAttributeName.FIFO_QUEUE)));
        } catch (PublishException e) {
            if (e.failure() != Failure.UNAVAILABLE && e.failure() != Failure.CREDENTIALS) {
                urls.remove(queue);
            }
            throw e.failure() == Failure.REQUEST_REFUSED
                    ? new PublishException(Failure.CONFIGURATION, e.getMessage(), e.getCause())
                    : e;
        }
    }

    private String url(String queue) {
        CompletableFuture<String> lookup = urls.compute(queue, (q, known) -> known == null
                || known.isCompletedExceptionally() || known.isCancelled()
                        ? client.getQueueUrl(r -> r.queueName(q)).thenApply(response -> response.queueUrl())
                        : known);
        if (!lookup.isDone()) {
            // The client retries a lookup until SQS can be called; without credentials that is no 30 s wait.
            connectivity.credentialsProblem().ifPresent(reason -> {
                throw new PublishException(Failure.CREDENTIALS, reason, null);
            });
        }
        try {
            return await(lookup);
        } catch (PublishException e) {
            if (e.failure() != Failure.UNAVAILABLE && e.failure() != Failure.CREDENTIALS) {
                urls.remove(queue, lookup);
            }
            throw e.failure() == Failure.REQUEST_REFUSED
                    ? new PublishException(Failure.CONFIGURATION, e.getMessage(), e.getCause())
                    : e;
        }
    }

    private static <T> T await(CompletableFuture<T> call) {
        try {
            return call.get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw failure(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishException(Failure.UNAVAILABLE, "interrupted", e);
        } catch (ExecutionException e) {
            throw failure(e.getCause() != null ? e.getCause() : e);
        }
    }

    private static PublishException failure(Throwable failed) {
        Throwable cause = failed instanceof java.util.concurrent.CompletionException && failed.getCause() != null
                ? failed.getCause()
                : failed;
        if (cause instanceof TimeoutException) {
            return new PublishException(Failure.UNAVAILABLE, "SQS did not answer within " + CALL_TIMEOUT.toSeconds()
                    + " s", cause);
        }
        Optional<CredentialsProblem> credentials = CredentialsProblem.of(cause);
        if (credentials.isPresent()) {
            return new PublishException(Failure.CREDENTIALS, credentials.get().reason(), cause);
        }
        return new PublishException(classify(cause), SqsQueues.rootMessage(cause), cause);
    }

    static Failure classify(Throwable failure) {
        if (failure instanceof QueueDoesNotExistException) {
            return Failure.CONFIGURATION;
        }
        if (failure instanceof BatchRequestTooLongException || failure instanceof TooManyEntriesInBatchRequestException
                || failure instanceof BatchEntryIdsNotDistinctException || failure instanceof InvalidBatchEntryIdException) {
            return Failure.REQUEST_REFUSED;
        }
        if (Throttling.throttled(failure)) {
            return Failure.UNAVAILABLE; // the queue's or the KMS key's rate: back off, no message is at fault
        }
        if (failure instanceof AwsServiceException service) {
            String code = service.awsErrorDetails() == null ? "" : String.valueOf(service.awsErrorDetails().errorCode());
            if (service.statusCode() == 403 || code.contains("AccessDenied") || code.contains("NonExistentQueue")
                    || code.contains("QueueDoesNotExist") || code.contains("InvalidClientTokenId")
                    || code.contains("SignatureDoesNotMatch") || code.startsWith("Kms")) {
                return Failure.CONFIGURATION;
            }
            if (service.isThrottlingException() || service.statusCode() >= 500 || service.statusCode() == 429) {
                return Failure.UNAVAILABLE;
            }
            return Failure.REQUEST_REFUSED;
        }
        // The network, a timeout, the client itself: nothing the message did.
        return Failure.UNAVAILABLE;
    }
}
