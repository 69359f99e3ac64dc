package dev.txinbox.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/**
 * Sends a stream with SendMessageBatch (10 per call). Each sender thread owns a share of the groups and
 * sends each group's messages in order, so SQS keeps the per-group order the generator chose. A batch
 * that fails in part is sent again with the same deduplication ids: SQS drops what it already took.
 */
public final class Producer {

    private final SqsClient client;
    private final String queueUrl;
    private final int threads;
    private final double ratePerSecond;
    private final AtomicLong sent = new AtomicLong();
    private volatile long firstSendMillis;
    private volatile long lastSendMillis;

    /** {@code ratePerSecond} 0 sends as fast as the broker takes it. */
    public Producer(SqsClient client, String queueUrl, int threads, double ratePerSecond) {
        this.client = client;
        this.queueUrl = queueUrl;
        this.threads = threads;
        this.ratePerSecond = ratePerSecond;
    }

    public void send(OrderStream stream) throws InterruptedException {
        List<List<Outgoing>> groups = stream.groups();
        int senders = Math.min(threads, groups.size());
        List<Thread> workers = new ArrayList<>();
        firstSendMillis = System.currentTimeMillis();
        for (int t = 0; t < senders; t++) {
            List<List<Outgoing>> mine = new ArrayList<>();
            for (int g = t; g < groups.size(); g += senders) {
                mine.add(groups.get(g));
            }
            double rate = ratePerSecond / senders;
            Thread worker = new Thread(() -> sendAll(mine, rate), "producer-" + t);
            worker.start();
            workers.add(worker);
        }
        for (Thread worker : workers) {
            worker.join();
        }
        lastSendMillis = System.currentTimeMillis();
    }

    /** Takes the next message of each owned group in turn, so that all groups are active at once. */
    private void sendAll(List<List<Outgoing>> groups, double rate) {
        int[] next = new int[groups.size()];
        int remaining = groups.stream().mapToInt(List::size).sum();
        long started = System.nanoTime();
        long mySent = 0;
        List<Outgoing> batch = new ArrayList<>(10);
        while (remaining > 0) {
            for (int g = 0; g < groups.size() && batch.size() < 10; g++) {
                if (next[g] < groups.get(g).size()) {
                    batch.add(groups.get(g).get(next[g]++));
                    remaining--;
                }
            }
            if (batch.size() == 10 || remaining == 0) {
                sendBatch(batch);
                mySent += batch.size();
                batch.clear();
                if (rate > 0) {
                    long due = started + (long) (mySent / rate * 1e9);
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                }
            }
        }
    }

    private void sendBatch(List<Outgoing> batch) {
        List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            Outgoing message = batch.get(i);
            entries.add(SendMessageBatchRequestEntry.builder().id(Integer.toString(i)).messageBody(message.body())
                    .messageGroupId(message.groupId()).messageDeduplicationId(message.deduplicationId()).build());
        }
        for (int attempt = 1;; attempt++) {
            try {
                SendMessageBatchResponse response = client.sendMessageBatch(r -> r.queueUrl(queueUrl).entries(entries));
                if (response.failed().isEmpty()) {
                    sent.addAndGet(entries.size());
                    return;
                }
                if (attempt >= 20) {
                    throw new IllegalStateException("SendMessageBatch keeps failing: " + response.failed());
                }
            } catch (RuntimeException e) {
                if (attempt >= 20) {
                    throw e;
                }
            }
            LockSupport.parkNanos(200_000_000L * Math.min(attempt, 10));
        }
    }

    public long sent() {
        return sent.get();
    }

    public long firstSendMillis() {
        return firstSendMillis;
    }

    public long lastSendMillis() {
        return lastSendMillis;
    }
}
