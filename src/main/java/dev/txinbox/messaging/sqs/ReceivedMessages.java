package dev.txinbox.messaging.sqs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;

import dev.txinbox.messaging.Delivery;
import io.smallrye.reactive.messaging.aws.sqs.SqsIncomingMetadata;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Messages a receive brought back that txinbox has not begun to process: they wait in the connector's buffer,
 * in a long poll that returned while the service was stopping, or behind their group in a dispatcher; or the
 * channel delivered them while the service was stopping, and the receiver did not take them. On shutdown the
 * connector drops its buffer, and SQS would keep those messages invisible for a whole visibility timeout, with
 * nobody working on them; the stop hands them back to their queue instead (found by the chaos suite's SIGTERM
 * scenario). A message leaves this list when a worker begins its batch.
 */
@ApplicationScoped
public class ReceivedMessages {

    /** A message waiting: its queue, and when its receive answered ({@link System#nanoTime}). */
    private record Waiting(String queueUrl, long receivedAtNanos) {
    }

    /** Receipt handle to where and since when it waits. */
    private final Map<String, Waiting> waiting = new ConcurrentHashMap<>();

    void received(String queueUrl, List<Message> messages) {
        long now = System.nanoTime();
        for (Message message : messages) {
            waiting.put(message.receiptHandle(), new Waiting(queueUrl, now));
        }
    }

    /**
     * The receive edge: what the channel delivered, as the pipeline reads it, with when its receive answered (so that
     * its wait in the connector's buffer is known); null when the connector attached no SQS message. It stays here
     * until a worker begins its batch.
     */
    public Delivery delivery(String queue, org.eclipse.microprofile.reactive.messaging.Message<?> delivered) {
        SqsIncomingMetadata metadata = delivered.getMetadata(SqsIncomingMetadata.class).orElse(null);
        if (metadata == null) {
            return null;
        }
        Message message = metadata.getMessage();
        long now = System.nanoTime();
        Waiting was = waiting.get(message.receiptHandle());
        return SqsDelivery.of(queue, message, was == null ? now : was.receivedAtNanos(), now);
    }

    /** A worker begins the message's batch: from here on it is settled, not handed back. */
    public void started(SqsDelivery delivery) {
        waiting.remove(delivery.receiptHandle());
    }

    public int waiting() {
        return waiting.size();
    }

    /**
     * Makes every message still waiting visible again at once, ten per call; completes with how many
     * SQS took back. Best effort: one not handed back returns after its visibility timeout anyway.
     */
    CompletableFuture<Integer> handBack(SqsAsyncClient client) {
        Map<String, List<String>> byQueue = waiting.entrySet().stream().collect(Collectors.groupingBy(
                e -> e.getValue().queueUrl(), Collectors.mapping(Map.Entry::getKey, Collectors.toList())));
        AtomicInteger handedBack = new AtomicInteger();
        List<CompletableFuture<?>> calls = new ArrayList<>();
        byQueue.forEach((queueUrl, handles) -> {
            for (int from = 0; from < handles.size(); from += 10) {
                List<String> chunk = handles.subList(from, Math.min(handles.size(), from + 10));
                List<ChangeMessageVisibilityBatchRequestEntry> entries = new ArrayList<>();
                for (int i = 0; i < chunk.size(); i++) {
                    entries.add(ChangeMessageVisibilityBatchRequestEntry.builder().id(Integer.toString(i))
                            .receiptHandle(chunk.get(i)).visibilityTimeout(0).build());
                }
                chunk.forEach(waiting::remove);
                CompletableFuture<?> call;
                try {
                    call = client.changeMessageVisibilityBatch(r -> r.queueUrl(queueUrl).entries(entries))
                            .thenAccept(response -> handedBack.addAndGet(response.successful().size()));
                } catch (RuntimeException e) {
                    call = CompletableFuture.failedFuture(e);
                }
                calls.add(call.exceptionally(failure -> null));
            }
        });
        return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).thenApply(done -> handedBack.get());
    }
}
