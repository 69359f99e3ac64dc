package dev.txinbox.messaging.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.SqsServiceClientConfiguration;
import software.amazon.awssdk.services.sqs.model.GetQueueAttributesRequest;
import software.amazon.awssdk.services.sqs.model.GetQueueAttributesResponse;
import software.amazon.awssdk.services.sqs.model.GetQueueUrlRequest;
import software.amazon.awssdk.services.sqs.model.GetQueueUrlResponse;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The stop waits for outstanding SQS calls of the queues (a queue-depth call of the statistics refresh, say,
 * while SQS is unreachable) and refuses new ones: a call still waiting when the event loop closes logs a
 * netty ERROR and holds the stop until it times out. The SQS here answers when the test says so, which is
 * the point: the question is what the stop does while an answer is outstanding.
 */
class SqsQueuesStopTest {

    /** An SQS whose queue-attribute answers the test hands out itself. */
    private static final class SlowSqs implements SqsAsyncClient {
        final CompletableFuture<GetQueueAttributesResponse> answer = new CompletableFuture<>();
        final CountDownLatch asked = new CountDownLatch(1);
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public CompletableFuture<GetQueueUrlResponse> getQueueUrl(Consumer<GetQueueUrlRequest.Builder> request) {
            return CompletableFuture.completedFuture(GetQueueUrlResponse.builder().queueUrl("http://sqs/q").build());
        }

        @Override
        public CompletableFuture<GetQueueAttributesResponse> getQueueAttributes(
                Consumer<GetQueueAttributesRequest.Builder> request) {
            calls.incrementAndGet();
            asked.countDown();
            return answer;
        }

        @Override
        public SqsServiceClientConfiguration serviceClientConfiguration() {
            throw new UnsupportedOperationException();
        }

        @Override
        public String serviceName() {
            return "sqs";
        }

        @Override
        public void close() {
        }
    }

    private final SlowSqs sqs = new SlowSqs();
    private final SqsQueues queues = new SqsQueues(sqs, new SqsConnectivity());

    @Test
    void theStopWaitsForACallInFlightThenRefusesNewOnes() throws Exception {
        CompletableFuture<SqsQueues.Depth> depth = CompletableFuture.supplyAsync(() -> queues.depth("q"));
        assertTrue(sqs.asked.await(5, TimeUnit.SECONDS));

        CompletableFuture<Boolean> closed = CompletableFuture.supplyAsync(() -> {
            try {
                return queues.close(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThrows(java.util.concurrent.TimeoutException.class, () -> closed.get(300, TimeUnit.MILLISECONDS),
                "the stop waits while SQS has not answered");

        sqs.answer.complete(GetQueueAttributesResponse.builder()
                .attributes(Map.of(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES, "7")).build());
        assertTrue(closed.get(5, TimeUnit.SECONDS), "and goes on once it has");
        assertEquals(7, depth.get(5, TimeUnit.SECONDS).visible());

        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> queues.depth("q"));
        assertTrue(refused.getMessage().contains("stopping"), refused.getMessage());
        assertEquals(1, sqs.calls.get(), "a stopped service does not call SQS");
    }

    @Test
    void aCallThatNeverAnswersHoldsTheStopNoLongerThanItsGrace() throws Exception {
        // On a thread of its own: a call left waiting on the common pool would hold the JVM's only worker of it
        // (2 CPUs) for the tests that run after this one.
        Thread caller = new Thread(() -> queues.depth("q"), "waiting-for-sqs");
        caller.setDaemon(true);
        caller.start();
        assertTrue(sqs.asked.await(5, TimeUnit.SECONDS));
        long started = System.nanoTime();
        assertFalse(queues.close(Duration.ofMillis(200)));
        assertTrue(Duration.ofNanos(System.nanoTime() - started).toMillis() < 5_000);
        sqs.answer.complete(GetQueueAttributesResponse.builder().build()); // lets the caller go
    }
}
