package dev.txinbox.messaging.sqs;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.SqsServiceClientConfiguration;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequest;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchResponse;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityRequest;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityResponse;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.DeleteMessageRequest;
import software.amazon.awssdk.services.sqs.model.DeleteMessageResponse;
import software.amazon.awssdk.services.sqs.model.GetQueueAttributesRequest;
import software.amazon.awssdk.services.sqs.model.GetQueueAttributesResponse;
import software.amazon.awssdk.services.sqs.model.GetQueueUrlRequest;
import software.amazon.awssdk.services.sqs.model.GetQueueUrlResponse;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageResponse;

/**
 * The SQS client the channel and txinbox use: the Quarkus-configured client, except that a failed
 * <em>receive</em> never fails. The connector ends its channel for good on the first receive that
 * fails (broker down, network gone, throttled beyond the SDK's retries); here such a receive waits
 * a backoff and returns no messages, so the channel polls on and resumes by itself when SQS answers.
 * {@link SqsConnectivity} keeps the state for readiness. Every message received is noted in
 * {@link ReceivedMessages} until txinbox takes it; once the service stops, a receive asks for nothing,
 * and one already in flight keeps its messages from the connector (the stop hands them back). Every
 * other call passes through unchanged.
 */
final class ResilientSqsClient implements SqsAsyncClient {

    private static final ReceiveMessageResponse NOTHING = ReceiveMessageResponse.builder().build();

    private final SqsAsyncClient delegate;
    private final SqsConnectivity connectivity;
    private final MeterRegistry registry;
    private final ReceivedMessages received;
    /**
     * Where backoffs end. Not the common fork-join pool, CompletableFuture's default: on a 1-2 CPU pod that is one
     * thread, which any blocking task (a start-up check calling SQS during an outage) holds, and the receives
     * would then stay silent past their backoff.
     */
    private final ScheduledExecutorService backoffs = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "txinbox-sqs-backoff");
        thread.setDaemon(true);
        return thread;
    });

    ResilientSqsClient(SqsAsyncClient delegate, SqsConnectivity connectivity, MeterRegistry registry,
            ReceivedMessages received) {
        this.delegate = delegate;
        this.received = received;
        this.connectivity = connectivity;
        this.registry = registry;
        // Present from the start, at zero, so that the alert on it has a series to watch.
        for (String call : List.of("receive", "delete_batch", "change_visibility_batch", "send", "send_batch",
                "get_queue_attributes", "get_queue_url")) {
            throttled(call);
        }
    }

    @Override
    public CompletableFuture<ReceiveMessageResponse> receiveMessage(ReceiveMessageRequest request) {
        if (!connectivity.receiving()) {
            return stopped();
        }
        Duration wait = connectivity.waitBeforeCall();
        if (!wait.isZero()) {
            return nothingAfter(wait);
        }
        connectivity.receiveStarted();
        CompletableFuture<ReceiveMessageResponse> call;
        try {
            call = delegate.receiveMessage(request);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        return call.handle((response, failure) -> {
            // The call is over once SQS has answered (and its messages are noted); a backoff after a
            // failure holds no messages and must not keep a stopping service waiting.
            try {
                if (failure == null) {
                    connectivity.succeeded();
                    counted("receive", response.messages().size());
                    received.received(request.queueUrl(), response.messages());
                    if (!connectivity.receiving()) {
                        // Returned while the service stops: the connector would drop these; the receiver's
                        // stop hands them back to the queue.
                        return ResilientSqsClient.<ReceiveMessageResponse>stopped();
                    }
                    return CompletableFuture.completedFuture(response);
                }
                if (Throttling.throttled(failure)) {
                    throttled("receive").increment();
                }
                return nothingAfter(connectivity.failed(unwrap(failure)));
            } finally {
                connectivity.receiveEnded();
            }
        }).thenCompose(response -> response);
    }

    /**
     * The connector resolves its queue URL once, at start, and dies if that fails: wait for SQS (or for usable
     * credentials) instead.
     */
    @Override
    public CompletableFuture<GetQueueUrlResponse> getQueueUrl(GetQueueUrlRequest request) {
        return watched("get_queue_url", delegate.getQueueUrl(request)).handle((response, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(response);
            }
            if (!connectivity.receiving()) {
                // The service stops: an answer now would wake the connector after its executors are gone (an
                // ERROR after shutdown, seen when a stop came during a credentials outage).
                return ResilientSqsClient.<GetQueueUrlResponse>stopped();
            }
            Throwable cause = unwrap(failure);
            if (!(cause instanceof SdkClientException) && CredentialsProblem.of(cause).isEmpty()) {
                return CompletableFuture.<GetQueueUrlResponse>failedFuture(cause);
            }
            Duration backoff = connectivity.failed(cause);
            return CompletableFuture.supplyAsync(() -> request, after(backoff))
                    .thenCompose(again -> connectivity.receiving() ? getQueueUrl(again)
                            : ResilientSqsClient.<GetQueueUrlResponse>stopped());
        }).thenCompose(response -> response);
    }

    @Override
    public CompletableFuture<DeleteMessageResponse> deleteMessage(DeleteMessageRequest request) {
        counted("delete", 1);
        return watched("delete", delegate.deleteMessage(request));
    }

    @Override
    public CompletableFuture<DeleteMessageBatchResponse> deleteMessageBatch(DeleteMessageBatchRequest request) {
        counted("delete_batch", request.entries().size());
        return watched("delete_batch", delegate.deleteMessageBatch(request));
    }

    @Override
    public CompletableFuture<ChangeMessageVisibilityResponse> changeMessageVisibility(
            ChangeMessageVisibilityRequest request) {
        counted("change_visibility", 1);
        return watched("change_visibility", delegate.changeMessageVisibility(request));
    }

    @Override
    public CompletableFuture<ChangeMessageVisibilityBatchResponse> changeMessageVisibilityBatch(
            ChangeMessageVisibilityBatchRequest request) {
        counted("change_visibility_batch", request.entries().size());
        return watched("change_visibility_batch", delegate.changeMessageVisibilityBatch(request));
    }

    @Override
    public CompletableFuture<SendMessageResponse> sendMessage(SendMessageRequest request) {
        counted("send", 1);
        return watched("send", delegate.sendMessage(request));
    }

    @Override
    public CompletableFuture<SendMessageBatchResponse> sendMessageBatch(SendMessageBatchRequest request) {
        counted("send_batch", request.entries().size());
        return watched("send_batch", delegate.sendMessageBatch(request));
    }

    @Override
    public CompletableFuture<GetQueueAttributesResponse> getQueueAttributes(GetQueueAttributesRequest request) {
        counted("get_queue_attributes", 0);
        return watched("get_queue_attributes", delegate.getQueueAttributes(request));
    }

    @Override
    public SqsServiceClientConfiguration serviceClientConfiguration() {
        return delegate.serviceClientConfiguration();
    }

    @Override
    public String serviceName() {
        return delegate.serviceName();
    }

    @Override
    public void close() {
        // The Quarkus extension owns the delegate and closes it.
        backoffs.shutdownNow();
    }

    /**
     * The answer to a receive once the service stops: none, ever. An empty answer would make the
     * connector's poll loop schedule its next poll on an executor the connector shuts down a moment
     * later, and every stop would log three ERRORs (SRMSG19302, SRMSG00201) with a
     * RejectedExecutionException. A poll that never returns schedules nothing; it ends with the JVM.
     */
    private static <T> CompletableFuture<T> stopped() {
        return new CompletableFuture<>();
    }

    /**
     * The answer to a receive during a backoff: no messages once it is over, or, if the service has begun
     * to stop by then, no answer at all, as {@link #stopped()} explains. During an SQS outage some backoff
     * is always running, and one that ended during the stop woke the connector's poll loop after its
     * executors were gone: an ERROR in the log of a pod stopped during an outage.
     */
    private CompletableFuture<ReceiveMessageResponse> nothingAfter(Duration backoff) {
        return CompletableFuture.supplyAsync(() -> connectivity.receiving(), after(backoff))
                .thenCompose(receiving -> receiving ? CompletableFuture.completedFuture(NOTHING) : stopped());
    }

    /**
     * {@code txinbox_sqs_requests_total{call}} and {@code txinbox_sqs_request_messages_total{call}}: SQS
     * bills per request, and messages per request says how well receives and deletes are batched.
     */
    private void counted(String call, int messages) {
        Counter.builder("txinbox.sqs.requests").description("SQS requests txinbox made, by call")
                .tag("call", call).register(registry).increment();
        Counter.builder("txinbox.sqs.request.messages").description("Messages those SQS requests carried, by call")
                .tag("call", call).register(registry).increment(messages);
    }

    /**
     * {@code txinbox_sqs_throttled_total{call}}: calls SQS refused for their rate after the SDK's retries. Each caller
     * backs off as for an outage; this says it is the quota, not SQS, that holds consumption back.
     */
    private <T> CompletableFuture<T> watched(String call, CompletableFuture<T> answer) {
        return answer.whenComplete((response, failure) -> {
            if (failure != null && Throttling.throttled(failure)) {
                throttled(call).increment();
            }
        });
    }

    private Counter throttled(String call) {
        return Counter.builder("txinbox.sqs.throttled").description("SQS calls refused for their rate, by call")
                .tag("call", call).register(registry);
    }

    private Executor after(Duration delay) {
        return CompletableFuture.delayedExecutor(delay.toMillis(), TimeUnit.MILLISECONDS, backoffs);
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
