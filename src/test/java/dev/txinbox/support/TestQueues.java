package dev.txinbox.support;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/** The tests' own SQS client: a producer, and an inspector of queue contents. */
public class TestQueues implements AutoCloseable {

    private final SqsClient client;

    public TestQueues(String endpoint) {
        client = SqsClient.builder().endpointOverride(URI.create(endpoint)).region(Region.EU_WEST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.create()).build();
    }

    public void createFifo(String name, int visibilitySeconds, String deadLetterQueue) {
        Map<QueueAttributeName, String> attributes = new java.util.HashMap<>(Map.of(
                QueueAttributeName.FIFO_QUEUE, "true",
                QueueAttributeName.CONTENT_BASED_DEDUPLICATION, "false",
                QueueAttributeName.VISIBILITY_TIMEOUT, Integer.toString(visibilitySeconds)));
        if (deadLetterQueue != null) {
            String arn = client.getQueueAttributes(r -> r.queueUrl(url(deadLetterQueue))
                    .attributeNames(QueueAttributeName.QUEUE_ARN)).attributes().get(QueueAttributeName.QUEUE_ARN);
            attributes.put(QueueAttributeName.REDRIVE_POLICY, "{\"deadLetterTargetArn\":\"" + arn
                    + "\",\"maxReceiveCount\":\"" + ElasticMqResource.MAX_RECEIVE_COUNT + "\"}");
        }
        client.createQueue(r -> r.queueName(name).attributes(attributes));
    }

    public String url(String queue) {
        return client.getQueueUrl(r -> r.queueName(queue)).queueUrl();
    }

    /** Sends one message to a FIFO queue, each with its own deduplication id (as a re-sending producer would). */
    public String send(String queue, String group, String body) {
        return send(queue, group, body, Map.of());
    }

    public String send(String queue, String group, String body, Map<String, String> attributes) {
        Map<String, MessageAttributeValue> values = new java.util.HashMap<>();
        attributes.forEach((k, v) -> values.put(k, MessageAttributeValue.builder().dataType("String").stringValue(v).build()));
        return client.sendMessage(r -> r.queueUrl(url(queue)).messageGroupId(group)
                .messageDeduplicationId(UUID.randomUUID().toString()).messageBody(body).messageAttributes(values))
                .messageId();
    }

    /** Sends up to ten messages of one group in one call, so that one receive can return them together. */
    public void sendBatch(String queue, String group, List<String> bodies) {
        List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
        for (int i = 0; i < bodies.size(); i++) {
            entries.add(SendMessageBatchRequestEntry.builder().id("m" + i).messageGroupId(group)
                    .messageDeduplicationId(UUID.randomUUID().toString()).messageBody(bodies.get(i)).build());
        }
        var response = client.sendMessageBatch(r -> r.queueUrl(url(queue)).entries(entries));
        if (!response.failed().isEmpty()) {
            throw new IllegalStateException("batch send failed: " + response.failed());
        }
    }

    /** A message to send: its group, body and string message attributes. */
    public record Outgoing(String group, String body, Map<String, String> attributes) {
    }

    /**
     * Sends messages in order, ten per call where they fit SQS's 256 KiB per call, and returns their SQS
     * message ids in the same order.
     */
    public List<String> sendAll(String queue, List<Outgoing> messages) {
        String url = url(queue);
        List<String> ids = new ArrayList<>(messages.size());
        List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
        int bytes = 0;
        for (Outgoing message : messages) {
            int size = message.body().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
            if (!entries.isEmpty() && (entries.size() == 10 || bytes + size > 200_000)) {
                ids.addAll(sendEntries(url, entries));
                entries.clear();
                bytes = 0;
            }
            Map<String, MessageAttributeValue> values = new java.util.HashMap<>();
            message.attributes().forEach((k, v) -> values.put(k,
                    MessageAttributeValue.builder().dataType("String").stringValue(v).build()));
            entries.add(SendMessageBatchRequestEntry.builder().id(Integer.toString(entries.size()))
                    .messageGroupId(message.group()).messageDeduplicationId(UUID.randomUUID().toString())
                    .messageBody(message.body()).messageAttributes(values).build());
            bytes += size;
        }
        if (!entries.isEmpty()) {
            ids.addAll(sendEntries(url, entries));
        }
        return ids;
    }

    private List<String> sendEntries(String url, List<SendMessageBatchRequestEntry> entries) {
        var response = client.sendMessageBatch(r -> r.queueUrl(url).entries(entries));
        if (!response.failed().isEmpty()) {
            throw new IllegalStateException("batch send failed: " + response.failed());
        }
        Map<String, String> byEntry = new java.util.HashMap<>();
        response.successful().forEach(ok -> byEntry.put(ok.id(), ok.messageId()));
        return entries.stream().map(e -> byEntry.get(e.id())).toList();
    }

    /** Visible plus in-flight plus delayed messages. */
    public int depth(String queue) {
        Map<QueueAttributeName, String> attributes = client.getQueueAttributes(r -> r.queueUrl(url(queue))
                .attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                        QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE,
                        QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED))
                .attributes();
        return attributes.values().stream().mapToInt(Integer::parseInt).sum();
    }

    /** Takes everything visible off a queue (for inspecting a dead-letter queue). */
    public List<Message> drain(String queue) {
        List<Message> all = new ArrayList<>();
        while (true) {
            List<Message> batch = client.receiveMessage(r -> r.queueUrl(url(queue)).maxNumberOfMessages(10)
                    .waitTimeSeconds(0).messageAttributeNames("All")
                    .messageSystemAttributeNames(MessageSystemAttributeName.ALL)).messages();
            if (batch.isEmpty()) {
                return all;
            }
            for (Message m : batch) {
                all.add(m);
                client.deleteMessage(r -> r.queueUrl(url(queue)).receiptHandle(m.receiptHandle()));
            }
        }
    }

    public void deleteQueue(String queue) {
        client.deleteQueue(r -> r.queueUrl(url(queue)));
    }

    public void purge(String queue) {
        client.purgeQueue(r -> r.queueUrl(url(queue)));
    }

    @Override
    public void close() {
        client.close();
    }
}
