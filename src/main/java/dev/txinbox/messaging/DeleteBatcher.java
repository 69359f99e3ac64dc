package dev.txinbox.messaging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.txinbox.ops.InboxMetrics;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;

/**
 * Deletes settled messages with DeleteMessageBatch, up to ten per call, after their outcome committed.
 * One DeleteMessage per message cost more CPU (service and broker) than the inbox transaction itself;
 * a batch costs about the same as one. A worker hands its message over and moves on: a delete that
 * comes late or fails only means SQS delivers the message again, and the inbox knows it then.
 * <p>
 * A FIFO group stays locked in SQS until its message is deleted, so deletes wait at most {@link #LINGER}
 * for company. The hand-over blocks when {@link #MAX_PENDING} deletes are waiting: if SQS falls behind,
 * the workers slow down instead of piling up messages whose visibility timeout runs.
 */
@ApplicationScoped
public class DeleteBatcher {

    private static final Logger LOG = Logger.getLogger(DeleteBatcher.class);
    static final Duration LINGER = Duration.ofMillis(5);
    private static final int MAX_BATCH = 10;
    private static final int MAX_PENDING = 2000;
    private static final int MAX_CALLS_IN_FLIGHT = 16;

    private record Pending(String consumer, String queueUrl, SqsDelivery delivery) {
    }

    private final SqsAsyncClient client;
    private final SqsQueues queues;
    private final InboxMetrics metrics;
    private final BlockingQueue<Pending> pending = new LinkedBlockingQueue<>(MAX_PENDING);
    private final Semaphore calls = new Semaphore(MAX_CALLS_IN_FLIGHT);
    private final Thread sender;
    private volatile boolean closed;

    public DeleteBatcher(SqsAsyncClient client, SqsQueues queues, InboxMetrics metrics) {
        this.client = client;
        this.queues = queues;
        this.metrics = metrics;
        this.sender = new Thread(this::run, "txinbox-deletes");
        this.sender.setDaemon(true);
        this.sender.start();
    }

    /** Deletes the message soon; never throws. Blocks only while too many deletes are waiting. */
    void delete(String consumer, SqsDelivery delivery) {
        Pending entry;
        try {
            entry = new Pending(consumer, queues.url(delivery.queue()), delivery);
        } catch (RuntimeException e) {
            refused(consumer, delivery, SqsQueues.rootMessage(e));
            return;
        }
        try {
            pending.put(entry);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            refused(consumer, delivery, "interrupted");
        }
    }

    private void run() {
        while (!closed || !pending.isEmpty()) {
            try {
                Pending first = pending.poll(200, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                List<Pending> batch = new ArrayList<>(MAX_BATCH);
                batch.add(first);
                long deadline = System.nanoTime() + LINGER.toNanos();
                while (batch.size() < MAX_BATCH) {
                    long wait = deadline - System.nanoTime();
                    Pending next = wait > 0 ? pending.poll(wait, TimeUnit.NANOSECONDS) : pending.poll();
                    if (next == null) {
                        break;
                    }
                    batch.add(next);
                }
                send(batch);
            } catch (InterruptedException e) {
                if (closed) {
                    return;
                }
            } catch (RuntimeException e) {
                LOG.errorf(e, "unexpected failure in the delete sender; it goes on");
            }
        }
    }

    private void send(List<Pending> batch) throws InterruptedException {
        Map<String, List<Pending>> byQueue = new LinkedHashMap<>();
        batch.forEach(p -> byQueue.computeIfAbsent(p.queueUrl(), q -> new ArrayList<>()).add(p));
        for (Map.Entry<String, List<Pending>> queue : byQueue.entrySet()) {
            List<Pending> entries = queue.getValue();
            List<DeleteMessageBatchRequestEntry> request = new ArrayList<>(entries.size());
            for (int i = 0; i < entries.size(); i++) {
                request.add(DeleteMessageBatchRequestEntry.builder().id(Integer.toString(i))
                        .receiptHandle(entries.get(i).delivery().receiptHandle()).build());
            }
            calls.acquire();
            CompletableFuture<?> call;
            try {
                call = client.deleteMessageBatch(r -> r.queueUrl(queue.getKey()).entries(request))
                        .whenComplete((response, failure) -> {
                            calls.release();
                            metrics.sqsRequest("delete_batch", entries.size());
                            if (failure != null) {
                                entries.forEach(p -> refused(p.consumer(), p.delivery(), SqsQueues.rootMessage(failure)));
                                return;
                            }
                            for (BatchResultErrorEntry error : response.failed()) {
                                Pending p = entries.get(Integer.parseInt(error.id()));
                                refused(p.consumer(), p.delivery(), error.code() + ": " + error.message());
                            }
                        });
            } catch (RuntimeException e) {
                calls.release();
                entries.forEach(p -> refused(p.consumer(), p.delivery(), SqsQueues.rootMessage(e)));
            }
        }
    }

    private void refused(String consumer, SqsDelivery delivery, String why) {
        metrics.ackFailed(consumer);
        LOG.warnf("could not delete message %s from %s after its outcome was committed (%s); it will be"
                + " redelivered and recognised as a duplicate", delivery.messageId(), delivery.queue(), why);
    }

    /**
     * Sends what is waiting and waits for the answers, up to {@code timeout}: on shutdown, after the
     * workers stopped and before the SQS client closes. What is not deleted by then simply comes back.
     */
    public void flush(Duration timeout) {
        closed = true;
        try {
            sender.join(timeout.toMillis());
            if (calls.tryAcquire(MAX_CALLS_IN_FLIGHT, Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS)) {
                calls.release(MAX_CALLS_IN_FLIGHT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!pending.isEmpty()) {
            LOG.warnf("%d deletes not sent before shutdown; those messages come back and are recognised as duplicates",
                    pending.size());
        }
    }

    @PreDestroy
    void close() {
        if (!closed) {
            flush(Duration.ofSeconds(5));
        }
    }
}
