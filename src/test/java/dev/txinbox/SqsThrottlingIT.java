package dev.txinbox;

import static dev.txinbox.support.PackagedService.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import dev.txinbox.support.AwsScenario;
import dev.txinbox.support.ElasticMqResource;

/**
 * SQS's limits, met: a FIFO queue allows so many calls per second per action, a message group its own share, an
 * encrypted queue its KMS key's. Here the stand-in in front of the broker answers with SQS's throttling errors for a
 * while, call by call, and the packaged service must count it per call, back off, lose nothing, apply nothing twice,
 * count no attempt, and resume by itself when SQS takes the calls again.
 */
class SqsThrottlingIT extends AwsScenario {

    SqsThrottlingIT() {
        super("_throttle");
    }

    @Test
    void throttledCallsBackOffLoseNothingAndResume() throws Exception {
        start(irsa(webIdentityToken("irsa-token-" + UUID.randomUUID())));
        sendOrders("warm", 5);
        awaitShipped(5);

        // The relay's sends (an encrypted queue's KMS key) and the deletes are refused for their rate, for longer
        // than the queue's visibility timeout times its maxReceiveCount: what was received is applied, and its
        // deletes are tried again while its messages are kept invisible. Given up instead, each message would come
        // back, count one more receive each time, and SQS's own redrive would move it, already applied, to the DLQ.
        // Meanwhile a message not yet deleted holds its FIFO group, as SQS's ordering wants.
        aws.throttle(Map.of("SendMessageBatch", "KmsThrottled", "DeleteMessageBatch", "RequestThrottled"));
        long deletesThrottled = System.nanoTime();
        sendOrders("sends", 5);
        await(Duration.ofSeconds(60), () -> service.metric("txinbox_sqs_throttled_total{call=\"delete_batch\"}") > 0);
        Duration sustained = Duration.ofSeconds(5L * ElasticMqResource.MAX_RECEIVE_COUNT + 5);
        Thread.sleep(Math.max(0, sustained.toMillis() - Duration.ofNanos(System.nanoTime() - deletesThrottled).toMillis()));
        assertEquals(0, queues.depth("orders-dlq.fifo"), "an applied message was dead-lettered by the redrive");
        assertTrue(aws.throttledCalls("DeleteMessageBatch") > 10, "the deletes were not tried again");
        aws.throttle(Map.of("SendMessageBatch", "KmsThrottled"));
        awaitShipped(10);
        await(Duration.ofSeconds(60), () -> queues.depth("orders.fifo") == 0);
        await(Duration.ofSeconds(60), () -> service.metric("txinbox_sqs_throttled_total{call=\"send_batch\"}") > 0);
        // Said once a minute with a count, not once per message or per try; and nothing was refused for good.
        assertTrue(service.logLines("SQS refused to delete") <= 2, "one line per try");
        assertEquals(0, service.logLines("could not delete"), "a delete was given up");

        // Then the receives: nothing is taken in, readiness says why.
        aws.throttle(Map.of("SendMessageBatch", "KmsThrottled", "ReceiveMessage", "ThrottlingException"));
        await(Duration.ofSeconds(60), () -> service.readinessCheck("sqs").contains("\"cause\":\"throttled\""));
        sendOrders("receives", 5);
        Thread.sleep(4_000);
        assertEquals(10, service.count("select count(*) from orders where status = 'SHIPPED'"));
        assertTrue(service.metric("txinbox_sqs_throttled_total{call=\"receive\"}") > 0);

        aws.throttle(Map.of());
        awaitShipped(15);
        await(Duration.ofSeconds(60), () -> queues.depth("orders.fifo") == 0);
        await(Duration.ofSeconds(60), () -> queues.depth(ElasticMqResource.ORDER_EVENTS) == 45);
        await(Duration.ofSeconds(30), () -> service.status("/q/health/ready") == 200);

        assertEquals(45, service.count("select count(*) from inbox_messages where status = 'PROCESSED'"));
        assertEquals(0, service.count("select count(*) from inbox_messages where attempt_count > 1"),
                "throttling counted an attempt");
        assertEquals(0, service.count("select count(*) from inbox_attempts"));
        assertEquals(15, service.count("select count(*) from payment_audit"), "a payment applied twice or lost");
        assertEquals(0, service.count("select coalesce(sum(attempts), 0) from outbox_events"),
                "throttling counted a relay attempt");
        assertEquals(0, queues.depth("orders-dlq.fifo"));
        assertEquals(0, service.metric("txinbox_outbox_failures_total{reason=\"configuration\"}"),
                "a throttled KMS key is not a configuration fault");
        assertTrue(service.metric("txinbox_outbox_failures_total{reason=\"unavailable\"}") > 0);
        assertTrue(aws.throttledCalls("ReceiveMessage") > 0 && aws.throttledCalls("SendMessageBatch") > 0);
        assertEquals(1, service.logLines("SQS throttles the receives"), "said once, not once per poll");
        assertEquals(0, service.logLines(" ERROR "));
    }

    /**
     * A receive loop stuck in its call (a connection that stopped answering) while the channel's other loop polls
     * on: the consumer still makes progress, so only watching each loop on its own sees half its capacity gone.
     * Liveness turns DOWN naming the loop, and UP again once the call returns.
     */
    @Test
    void aStuckReceiveLoopOfTwoTurnsLivenessDownNamingIt() throws Exception {
        Map<String, String> settings = new HashMap<>(irsa(webIdentityToken("irsa-token-" + UUID.randomUUID())));
        settings.put("TXINBOX_HEALTH_STALL_AFTER", "4s");
        start(settings);
        sendOrders("before", 2);
        awaitShipped(2);
        assertEquals(200, service.status("/q/health/live"));

        CountDownLatch release = aws.holdNextReceive();
        await(Duration.ofSeconds(30), () -> service.status("/q/health/live") == 503);
        String liveness = service.get("/q/health/live");
        assertTrue(liveness.matches("(?s).*receive loop [12] of 2 has not polled for \\d+ s while loop [12] polls.*"),
                liveness);
        sendOrders("meanwhile", 2);
        awaitShipped(4); // the other loop carries the consumer: its progress alone would have said UP

        release.countDown();
        await(Duration.ofSeconds(30), () -> service.status("/q/health/live") == 200);
        assertEquals(0, service.logLines(" ERROR "));
    }

    private void awaitShipped(int orders) {
        await(Duration.ofSeconds(90),
                () -> service.count("select count(*) from orders where status = 'SHIPPED'") == orders);
    }
}
