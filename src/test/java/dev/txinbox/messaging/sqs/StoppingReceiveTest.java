package dev.txinbox.messaging.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.eclipse.microprofile.reactive.messaging.Metadata;
import org.elasticmq.NodeAddress;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.txinbox.support.TestQueues;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.smallrye.reactive.messaging.aws.sqs.SqsIncomingMetadata;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;

/**
 * Messages the connector has fetched but not yet handed to txinbox (its buffer, or a long poll returning
 * during the stop) must go back to the queue at once when the service stops: dropped with the connector's
 * executors, they would stay invisible for a whole visibility timeout, 30 s in which no instance could
 * process them. A real ElasticMQ with a 30 s visibility timeout, so that "at once" and "after the timeout"
 * cannot be confused.
 */
class StoppingReceiveTest {

    private static final String QUEUE = "stopping.fifo";

    private SQSRestServer broker;
    private SqsAsyncClient sdk;
    private TestQueues queues;
    private SqsConnectivity connectivity;
    private ReceivedMessages received;
    private ResilientSqsClient client;

    @BeforeEach
    void startBroker() {
        int port = freePort();
        broker = SQSRestServerBuilder.withInterface("127.0.0.1").withPort(port)
                .withServerAddress(new NodeAddress("http", "127.0.0.1", port, ""))
                .withAWSRegion("eu-west-1").withAWSAccountId("000000000000").start();
        broker.waitUntilStarted();
        String endpoint = "http://127.0.0.1:" + port;
        queues = new TestQueues(endpoint);
        queues.createFifo(QUEUE, 30, null);
        sdk = SqsAsyncClient.builder().endpointOverride(URI.create(endpoint)).region(Region.EU_WEST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                // Now and then (about 1 run in 25 here) Netty's pool does not fail a connection to the stopped
                // broker at once but lets its acquire run to its timeout, 10 s by default: the timeouts are cut
                // so that every call to a broker that is gone fails within the backoffs these tests time.
                .httpClient(NettyNioAsyncHttpClient.builder().connectionTimeout(Duration.ofSeconds(1))
                        .connectionAcquisitionTimeout(Duration.ofSeconds(1)).build())
                // One refused connection is one failed call: the SDK's own retries would blur the timing.
                .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry())).build();
        connectivity = new SqsConnectivity();
        received = new ReceivedMessages();
        client = new ResilientSqsClient(sdk, connectivity, new SimpleMeterRegistry(), received);
    }

    @AfterEach
    void stopBroker() {
        sdk.close();
        queues.close();
        if (broker != null) {
            broker.stopAndWait();
        }
    }

    @Test
    void messagesThatAPollInFlightBringsBackAfterTheStopGoStraightBackToTheQueue() throws Exception {
        CompletableFuture<ReceiveMessageResponse> poll = client.receiveMessage(r -> r.queueUrl(queues.url(QUEUE))
                .maxNumberOfMessages(10).waitTimeSeconds(5));
        // The poll is in flight from here on; whether it reaches the broker before or after the send below,
        // it answers after the stop, with the message.
        connectivity.stopReceiving();
        queues.send(QUEUE, "order-1", "{\"arrives\":\"during the stop\"}");

        assertTrue(connectivity.awaitNoReceives(Duration.ofSeconds(10)), "no receive left in flight");
        assertFalse(poll.isDone(), "the stopping service hands the connector nothing from a poll that returns late,"
                + " not even an empty answer (its poll loop would schedule on an executor being shut down)");
        assertEquals(1, received.handBack(sdk).get(5, TimeUnit.SECONDS), "the stop hands it back");

        List<Message> again = receiveWithin(Duration.ofSeconds(2));
        assertEquals(1, again.size(), "visible again at once, not after the 30 s visibility timeout");
        assertEquals("{\"arrives\":\"during the stop\"}", again.get(0).body());
        assertEquals("2", again.get(0).attributes().get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT),
                "it was received once by the stopping service");
    }

    @Test
    void messagesFetchedButNeverHandedToTxinboxGoBackAtTheStop() throws Exception {
        for (String group : List.of("order-a", "order-b", "order-c")) {
            queues.send(QUEUE, group, "{\"group\":\"" + group + "\"}");
        }
        List<Message> fetched = client.receiveMessage(r -> r.queueUrl(queues.url(QUEUE)).maxNumberOfMessages(10)
                .waitTimeSeconds(1)).get(10, TimeUnit.SECONDS).messages();
        assertEquals(3, fetched.size());
        received.started(SqsDelivery.of(QUEUE, fetched.get(0))); // its batch began: the batch settles it

        connectivity.stopReceiving();
        assertEquals(2, received.handBack(sdk).get(5, TimeUnit.SECONDS));

        List<String> again = receiveWithin(Duration.ofSeconds(2)).stream().map(Message::body).sorted().toList();
        assertEquals(fetched.subList(1, 3).stream().map(Message::body).sorted().toList(), again,
                "the two left in the buffer are visible again at once; the one being processed is not");
        assertEquals(0, received.waiting());
    }

    @Test
    void aMessageTakenFromTheChannelWhoseBatchNoWorkerBeganGoesBackAtTheStop() throws Exception {
        queues.send(QUEUE, "order-a", "{\"queued\":\"behind its group\"}");
        List<Message> fetched = client.receiveMessage(r -> r.queueUrl(queues.url(QUEUE)).maxNumberOfMessages(10)
                .waitTimeSeconds(1)).get(10, TimeUnit.SECONDS).messages();
        assertEquals(1, fetched.size());
        // Taken from the channel (queued in a dispatcher); no worker has begun its batch.
        received.delivery(QUEUE, org.eclipse.microprofile.reactive.messaging.Message.of(fetched.get(0).body(),
                Metadata.of(new SqsIncomingMetadata(fetched.get(0)))));

        connectivity.stopReceiving();
        assertEquals(1, received.handBack(sdk).get(5, TimeUnit.SECONDS));
        assertEquals(1, receiveWithin(Duration.ofSeconds(2)).size(), "visible again at once");
    }

    @Test
    void aReceiveBackingOffAfterAFailureDoesNotHoldUpTheStopAndNeverAnswersAfterIt() throws Exception {
        String url = queues.url(QUEUE);
        broker.stopAndWait();
        broker = null; // SQS is gone for the rest of this test
        CompletableFuture<ReceiveMessageResponse> poll = client.receiveMessage(r -> r.queueUrl(url)
                .maxNumberOfMessages(10).waitTimeSeconds(1));

        connectivity.stopReceiving();
        assertTrue(connectivity.awaitNoReceives(Duration.ofMillis(500)),
                "the refused call is over; the 1 s backoff after it holds no messages and no one waits for it");
        // Three times the backoff: an empty answer at its end would wake the connector's poll loop after
        // its executors are gone (an ERROR in the log of a pod stopped during an SQS outage).
        assertThrows(TimeoutException.class, () -> poll.get(3, TimeUnit.SECONDS),
                "a backoff that ends after the stop answers nothing");
    }

    @Test
    void whileSqsIsDownAPollWaitsOutTheBackoffAndGetsAnEmptyAnswer() throws Exception {
        String url = queues.url(QUEUE);
        broker.stopAndWait();
        broker = null;
        CompletableFuture<ReceiveMessageResponse> refused = client.receiveMessage(r -> r.queueUrl(url)
                .maxNumberOfMessages(10).waitTimeSeconds(1));
        assertTrue(refused.get(5, TimeUnit.SECONDS).messages().isEmpty(), "a failed receive is an empty one");
        assertFalse(connectivity.reachable());
        CompletableFuture<ReceiveMessageResponse> during = client.receiveMessage(r -> r.queueUrl(url)
                .maxNumberOfMessages(10).waitTimeSeconds(1));
        // Its 2 s backoff, after a call that fails within 1 s.
        assertTrue(during.get(6, TimeUnit.SECONDS).messages().isEmpty(), "the next poll waits, then gets nothing");
    }

    @Test
    void aStoppedServiceAsksSqsForNothing() throws Exception {
        queues.send(QUEUE, "order-2", "{\"waits\":\"for the next instance\"}");
        connectivity.stopReceiving();

        CompletableFuture<ReceiveMessageResponse> poll = client.receiveMessage(r -> r.queueUrl(queues.url(QUEUE))
                .maxNumberOfMessages(10).waitTimeSeconds(1));
        assertFalse(poll.isDone(), "a stopped service's poll never answers, so the connector schedules nothing more");

        List<Message> untouched = receiveWithin(Duration.ofSeconds(2));
        assertEquals(1, untouched.size());
        assertEquals("1", untouched.get(0).attributes().get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT),
                "never received by the stopped service");
    }

    private List<Message> receiveWithin(Duration wait) throws Exception {
        return sdk.receiveMessage(r -> r.queueUrl(queues.url(QUEUE)).maxNumberOfMessages(10)
                .waitTimeSeconds((int) wait.toSeconds())
                .messageSystemAttributeNames(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT))
                .get(10, TimeUnit.SECONDS).messages();
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
