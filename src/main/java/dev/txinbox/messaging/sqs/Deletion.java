package dev.txinbox.messaging.sqs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import dev.txinbox.messaging.CallsInFlight;
import dev.txinbox.messaging.Delivery;
import dev.txinbox.messaging.DeliverySettlement.Reply;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;

/**
 * The deletes of one call, until SQS has taken each or refused it for good. A delete that is refused for a
 * reason that passes (the queue's rate, SQS's own fault, the network, a timeout, credentials being renewed) is
 * tried again after a backoff: given up, its message would come back, be recognised and be deleted again, and
 * with every receive SQS counts one more towards the queue's {@code maxReceiveCount}, until its redrive moves
 * the message, already applied, to the DLQ. Meanwhile the messages are kept invisible (ChangeMessageVisibilityBatch,
 * a quota of its own), so they neither come back nor count a receive. The call keeps its place among the calls
 * in flight until it is settled: while SQS refuses deletes the workers slow down, and the stop waits for it.
 */
final class Deletion {

    /** How long a refused delete is tried again; its message comes back after that and is recognised. */
    static final Duration MAX_RETRYING = Duration.ofMinutes(15);

    private final SqsAsyncClient client;
    private final ScheduledExecutorService retries;
    private final BooleanSupplier stopped;
    private final CallsInFlight calls;
    private final String url;
    private final List<Delivery> chunk;
    private final Duration visibilityTimeout;
    private final Reply reply;
    private final long startedNanos = System.nanoTime();
    /**
     * {@link System#nanoTime} until which these messages are surely invisible: until the first extension, not
     * known (the queue's own visibility timeout may differ from the consumer's setting), so the first refusal
     * extends it.
     */
    private long visibleUntilNanos = System.nanoTime();
    private int attempts;

    /**
     * {@code calls}: the place this call took among the calls in flight, given back once it is settled;
     * {@code stopped}: whether the service stops, after which nothing is tried again.
     */
    Deletion(SqsAsyncClient client, String url, List<Delivery> chunk, Duration visibilityTimeout, Reply reply,
            ScheduledExecutorService retries, BooleanSupplier stopped, CallsInFlight calls) {
        this.client = client;
        this.retries = retries;
        this.stopped = stopped;
        this.calls = calls;
        this.url = url;
        this.chunk = chunk;
        this.visibilityTimeout = visibilityTimeout;
        this.reply = reply;
    }

    void attempt(List<Delivery> pending) {
        attempts++;
        List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>(pending.size());
        for (int i = 0; i < pending.size(); i++) {
            entries.add(DeleteMessageBatchRequestEntry.builder().id(Integer.toString(i))
                    .receiptHandle(((SqsDelivery) pending.get(i)).receiptHandle()).build());
        }
        SettlementCalls.sent(() -> client.deleteMessageBatch(r -> r.queueUrl(url).entries(entries)))
                .whenComplete((response, failure) -> answered(pending,
                        failure == null ? response.failed() : List.of(), failure));
    }

    private void answered(List<Delivery> pending, List<BatchResultErrorEntry> failed, Throwable failure) {
        List<Delivery> again = new ArrayList<>();
        String why;
        if (failure != null) {
            why = SqsQueues.rootMessage(failure);
            if (passes(failure)) {
                again.addAll(pending);
            } else {
                pending.forEach(d -> reply.refused(d, why));
            }
        } else {
            why = failed.isEmpty() ? null : failed.get(0).code() + ": " + failed.get(0).message();
            for (BatchResultErrorEntry error : failed) {
                Delivery delivery = pending.get(Integer.parseInt(error.id()));
                if (passes(error)) {
                    again.add(delivery);
                } else {
                    reply.refused(delivery, error.code() + ": " + error.message());
                }
            }
        }
        if (again.isEmpty()) {
            settled();
            return;
        }
        Duration tried = Duration.ofNanos(System.nanoTime() - startedNanos);
        if (stopped.getAsBoolean() || tried.compareTo(MAX_RETRYING) >= 0) {
            String after = why + (stopped.getAsBoolean() ? "; the service stops" : "; given up after " + tried.toSeconds() + " s");
            again.forEach(d -> reply.refused(d, after));
            settled();
            return;
        }
        reply.retrying(pending.get(0).queue(), again.size(), why);
        Duration delay = backoff();
        keptInvisible(again, delay).whenComplete((ignored, unused) -> retryAfter(delay, again));
    }

    /** Tries again after the backoff, or, once the service stops retrying, gives up at once. */
    private void retryAfter(Duration delay, List<Delivery> again) {
        try {
            retries.schedule(() -> attempt(again), delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            again.forEach(d -> reply.refused(d, "the service stops"));
            settled();
        }
    }

    /** 250 ms doubling, at most 5 s and at most a third of the visibility timeout. */
    private Duration backoff() {
        long millis = Math.min(250L << Math.min(attempts - 1, 5), Math.min(5_000, visibilityTimeout.toMillis() / 3));
        return Duration.ofMillis(Math.max(millis, 50));
    }

    /**
     * Extends the messages' visibility by the consumer's visibility timeout unless they stay invisible until
     * well after the next attempt. Completes either way: a message that becomes visible comes back
     * and is recognised, and the attempt with its old receipt handle is refused for good.
     */
    private CompletableFuture<Void> keptInvisible(List<Delivery> pending, Duration delay) {
        long now = System.nanoTime();
        Duration margin = visibilityTimeout.dividedBy(3);
        if (visibleUntilNanos - now > delay.plus(margin).toNanos()) {
            return CompletableFuture.completedFuture(null);
        }
        List<ChangeMessageVisibilityBatchRequestEntry> entries = new ArrayList<>(pending.size());
        for (int i = 0; i < pending.size(); i++) {
            entries.add(ChangeMessageVisibilityBatchRequestEntry.builder().id(Integer.toString(i))
                    .receiptHandle(((SqsDelivery) pending.get(i)).receiptHandle())
                    .visibilityTimeout((int) Math.max(1, visibilityTimeout.toSeconds())).build());
        }
        return SettlementCalls.sent(() -> client.changeMessageVisibilityBatch(r -> r.queueUrl(url).entries(entries)))
                .handle((response, failure) -> {
                    if (failure == null && response.failed().isEmpty()) {
                        visibleUntilNanos = now + visibilityTimeout.toNanos();
                    }
                    return null;
                });
    }

    private void settled() {
        calls.ended();
        reply.answered(chunk.size());
    }


    /** Whether a refused call may well be taken when tried again: nothing about the request itself is wrong. */
    static boolean passes(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                : failure;
        if (Throttling.throttled(cause) || CredentialsProblem.of(cause).isPresent()) {
            return true;
        }
        if (cause instanceof AwsServiceException service) {
            return service.statusCode() >= 500 || service.statusCode() == 429;
        }
        return cause instanceof SdkClientException;
    }

    /** Whether one refused entry may well be taken when tried again: SQS's own fault, or the rate. */
    static boolean passes(BatchResultErrorEntry error) {
        return !Boolean.TRUE.equals(error.senderFault()) || Throttling.throttlingCode(error.code());
    }
}
