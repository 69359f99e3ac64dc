package dev.txinbox.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.txinbox.harness.Sqs;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The drain ceiling: receives and deletes (DeleteMessageBatch), touching no database. Nothing real can be
 * faster on the same broker, so txinbox's throughput divided by this one says how much of the broker's
 * speed the inbox keeps. Runs as its own process, so its CPU is measured like the service's; prints
 * {@link Progress} lines like the naive consumer.
 * <p>
 * Usage: Drain endpoint queueUrl pollers expectedMessages
 */
public final class Drain {

    public static void main(String[] args) throws Exception {
        String endpoint = args[0];
        String queueUrl = args[1];
        int pollers = Integer.parseInt(args[2]);
        long expected = Long.parseLong(args[3]);
        AtomicLong handled = new AtomicLong();
        AtomicLong lastDelete = new AtomicLong();
        AtomicLong requests = new AtomicLong();
        try (Sqs sqs = new Sqs(endpoint, pollers * 2)) {
            Progress.report(handled, requests);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < pollers; i++) {
                Thread thread = new Thread(() -> {
                    while (handled.get() < expected) {
                        List<Message> messages = sqs.client().receiveMessage(r -> r.queueUrl(queueUrl)
                                .maxNumberOfMessages(10).waitTimeSeconds(1)).messages();
                        requests.incrementAndGet();
                        if (messages.isEmpty()) {
                            continue;
                        }
                        sqs.deleteBatch(queueUrl, messages);
                        requests.incrementAndGet();
                        handled.addAndGet(messages.size());
                        lastDelete.accumulateAndGet(System.currentTimeMillis(), Math::max);
                    }
                }, "drain-" + i);
                thread.start();
                threads.add(thread);
            }
            for (Thread thread : threads) {
                thread.join();
            }
        }
        Progress.summary(Map.of("handled", handled.get(), "sqsRequests", requests.get(), "lastCommitMillis",
                lastDelete.get()));
    }
}
