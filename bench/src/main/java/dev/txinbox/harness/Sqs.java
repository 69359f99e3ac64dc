package dev.txinbox.harness;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/** A plain SQS client for the standalone ElasticMQ, and the queue chores of a run. */
public final class Sqs implements AutoCloseable {

    private final SqsClient client;
    private final String endpoint;

    public Sqs(String endpoint, int connections) {
        this.endpoint = endpoint;
        this.client = SqsClient.builder()
                .endpointOverride(URI.create(endpoint))
                .region(Region.EU_WEST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench")))
                .httpClientBuilder(ApacheHttpClient.builder().maxConnections(connections)
                        .connectionTimeout(Duration.ofSeconds(5)).socketTimeout(Duration.ofSeconds(30)))
                .build();
    }

    public SqsClient client() {
        return client;
    }

    public String endpoint() {
        return endpoint;
    }

    /** Creates a FIFO queue (no content-based deduplication: the producer sets ids) and returns its URL. */
    public String createFifo(String name, Duration visibilityTimeout) {
        return client.createQueue(r -> r.queueName(name).attributes(Map.of(
                QueueAttributeName.FIFO_QUEUE, "true",
                QueueAttributeName.CONTENT_BASED_DEDUPLICATION, "false",
                QueueAttributeName.VISIBILITY_TIMEOUT, Long.toString(visibilityTimeout.toSeconds())))).queueUrl();
    }

    public void deleteQueue(String url) {
        try {
            client.deleteQueue(r -> r.queueUrl(url));
        } catch (RuntimeException e) {
            // best effort: a leftover queue only costs memory in a throwaway broker
        }
    }

    /** Deletes {@code messages} (up to 10, as received) in one DeleteMessageBatch. */
    public void deleteBatch(String url, List<Message> messages) {
        List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            entries.add(DeleteMessageBatchRequestEntry.builder().id(Integer.toString(i))
                    .receiptHandle(messages.get(i).receiptHandle()).build());
        }
        client.deleteMessageBatch(r -> r.queueUrl(url).entries(entries));
    }

    /**
     * Reads and deletes everything the queue holds, with its message attributes, until two receives in a row find
     * nothing. A FIFO queue hands out nothing more of a group while one of its messages is in flight, so reading
     * without deleting would stop at each group's first message; messages come back per group in order.
     */
    public List<Message> drain(String url) {
        List<Message> all = new ArrayList<>();
        int empty = 0;
        while (empty < 2) {
            List<Message> batch = client.receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(10)
                    .waitTimeSeconds(1).visibilityTimeout(60).messageAttributeNames("All")).messages();
            if (batch.isEmpty()) {
                empty++;
                continue;
            }
            empty = 0;
            all.addAll(batch);
            deleteBatch(url, batch);
        }
        return all;
    }

    /** Visible, in flight and delayed messages together. */
    public long depth(String url) {
        Map<QueueAttributeName, String> attributes = client.getQueueAttributes(r -> r.queueUrl(url).attributeNames(
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE,
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED)).attributes();
        return attributes.values().stream().mapToLong(Long::parseLong).sum();
    }

    @Override
    public void close() {
        client.close();
    }
}
