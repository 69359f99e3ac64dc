package dev.txinbox.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * The part of an outbox relay's work that no relay can avoid, without the relay: one message sent to a FIFO queue
 * per message the service applies, in {@code SendMessageBatch} calls of ten, of distinct groups, eight calls in
 * flight, with a body and attributes shaped as the relay's are. No database is read or written. Run beside the
 * inbox with its relay off, it measures what the broker's and an SQS client's share of the relay costs the inbox on
 * these cores: the most a relay could keep.
 */
public final class BareSender implements AutoCloseable {

    private static final int BATCH = 10;
    private static final int IN_FLIGHT = 8;
    private static final int GROUPS = 1000;

    private final SqsClient client;
    private final String queueUrl;
    private final long base;
    private final AtomicLong due = new AtomicLong();
    private final AtomicLong claimed = new AtomicLong();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong calls = new AtomicLong();
    private final List<Thread> workers = new ArrayList<>();
    private volatile boolean running = true;

    /** {@code base}: the service's applied count when the sender starts; it sends for what is applied after. */
    public BareSender(SqsClient client, String queueUrl, long base) {
        this.client = client;
        this.queueUrl = queueUrl;
        this.base = base;
        for (int i = 0; i < IN_FLIGHT; i++) {
            Thread worker = new Thread(this::work, "bare-sender-" + i);
            worker.setDaemon(true);
            worker.start();
            workers.add(worker);
        }
    }

    /** The service has applied {@code applied} messages in all: as many are due to be sent, less the base. */
    public void follow(long applied) {
        due.accumulateAndGet(applied - base, Math::max);
    }

    public long sent() {
        return sent.get();
    }

    public long calls() {
        return calls.get();
    }

    private void work() {
        while (running) {
            long from = claimed.get();
            long until = Math.min(due.get(), from + BATCH);
            if (until <= from) {
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
                continue;
            }
            if (!claimed.compareAndSet(from, until)) {
                continue;
            }
            List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
            for (long n = from; n < until; n++) {
                entries.add(entry(n));
            }
            try {
                client.sendMessageBatch(r -> r.queueUrl(queueUrl).entries(entries));
                sent.addAndGet(entries.size());
                calls.incrementAndGet();
            } catch (RuntimeException e) {
                if (running) {
                    System.out.println("    bare sender: a call failed: " + e.getMessage());
                }
            }
        }
    }

    private static SendMessageBatchRequestEntry entry(long n) {
        String id = UUID.randomUUID().toString();
        String group = "bare-" + (n % GROUPS);
        String body = "{\"eventId\":\"" + id + "\",\"type\":\"OrderPaid\",\"aggregateId\":\"" + group
                + "\",\"sequence\":" + n + ",\"occurredAt\":\"2026-12-05T06:00:00.000000Z\",\"payload\":"
                + "{\"amount\": 36458, \"status\": \"PAID\", \"orderId\": \"" + group + "\", \"causedBy\": \"evt-"
                + group + "-" + n + "\", \"currency\": \"EUR\", \"customerId\": \"cust-" + (n % GROUPS) + "\"}}";
        return SendMessageBatchRequestEntry.builder().id(Long.toString(n % BATCH)).messageGroupId(group)
                .messageDeduplicationId(id).messageBody(body)
                .messageAttributes(Map.of("event-id", text(id), "aggregate-type", text("Order"), "event-type",
                        text("OrderPaid")))
                .build();
    }

    private static MessageAttributeValue text(String value) {
        return MessageAttributeValue.builder().dataType("String").stringValue(value).build();
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        for (Thread worker : workers) {
            worker.join(30_000);
        }
    }
}
