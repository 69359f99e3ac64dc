package dev.txinbox;

import static dev.txinbox.support.PackagedService.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.txinbox.support.AwsScenario;
import dev.txinbox.support.AwsStandIn;
import dev.txinbox.support.ElasticMqResource;

/**
 * The packaged service with its production credential settings, as EKS runs it: no keys anywhere, only what IRSA
 * (a role and a projected web identity token, exchanged at STS) or EKS Pod Identity (a container credentials endpoint
 * and its authorization token) give the pod. {@link AwsStandIn} plays STS, the Pod Identity agent and SQS's check of
 * the caller's keys in front of a real broker, so each scenario shows the messages consumed, and the outbox's events
 * published, with the credentials the stand-in handed out, and nothing else.
 */
class AwsCredentialsIT extends AwsScenario {

    AwsCredentialsIT() {
        super("_aws");
    }

    @Test
    void irsaTheRoleStsGaveConsumesAndPublishes() throws Exception {
        Path token = webIdentityToken("irsa-token-" + UUID.randomUUID());
        start(irsa(token));

        sendOrders("irsa", 10);
        awaitShipped(10);
        await(Duration.ofSeconds(60), () -> queues.depth(ElasticMqResource.ORDER_EVENTS) == 30);

        assertFalse(aws.asked().isEmpty(), "STS was never asked");
        for (AwsStandIn.Asked asked : aws.asked()) {
            assertEquals(ROLE, asked.roleArn());
            assertEquals(Files.readString(token), asked.token(), "STS was not shown the projected token");
        }
        assertOnlyIssuedKeysUsed();
    }

    @Test
    void podIdentityTheAgentsCredentialsConsumeAndPublish() throws Exception {
        Path token = webIdentityToken("pod-identity-token-" + UUID.randomUUID());
        start(Map.of("AWS_CONTAINER_CREDENTIALS_FULL_URI", aws.endpoint() + AwsStandIn.POD_IDENTITY_PATH,
                "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", token.toString()));

        sendOrders("pod", 10);
        awaitShipped(10);
        await(Duration.ofSeconds(60), () -> queues.depth(ElasticMqResource.ORDER_EVENTS) == 30);

        assertFalse(aws.asked().isEmpty(), "the Pod Identity endpoint was never asked");
        for (AwsStandIn.Asked asked : aws.asked()) {
            assertEquals(Files.readString(token), asked.token(), "the agent was not shown the pod's token");
        }
        assertOnlyIssuedKeysUsed();
    }

    /**
     * Temporary credentials end; a pod runs for weeks. Here they last 80 s, so the SDK takes new ones all the time
     * (STS's hour, scaled down), and SQS refuses a key past its expiry: consumption and the relay go on across
     * the refreshes with no failure at all.
     */
    @Test
    void expiringCredentialsAreRenewedWithoutAFailure() throws Exception {
        aws.lifetime(Duration.ofSeconds(80));
        start(irsa(webIdentityToken("irsa-token-" + UUID.randomUUID())));

        int orders = 0;
        for (int wave = 0; wave < 5; wave++) {
            sendOrders("wave" + wave, 6);
            orders += 6;
            int shipped = orders;
            awaitShipped(shipped);
            Thread.sleep(4_000);
        }
        int events = 3 * orders;
        await(Duration.ofSeconds(60), () -> queues.depth(ElasticMqResource.ORDER_EVENTS) == events);

        assertTrue(aws.issued().size() >= 3, "credentials were renewed fewer than twice: " + aws.issued().size());
        assertTrue(aws.keysUsedFor("ReceiveMessage").size() >= 3, "receives used " + aws.keysUsedFor("ReceiveMessage"));
        assertTrue(aws.keysUsedFor("SendMessageBatch").size() >= 2,
                "the relay's sends used " + aws.keysUsedFor("SendMessageBatch"));
        assertOnlyIssuedKeysUsed();
        // A loaded machine may time a call out now and then; what must never show is a credentials problem.
        List<String> complaints = Files.readAllLines(log).stream()
                .filter(line -> line.contains(" ERROR ") || (line.contains(" WARN ")
                        && line.matches("(?i).*(credential|token|\\bsts\\b|unrecognized).*"))).toList();
        assertTrue(complaints.isEmpty(), "the renewals were not silent:\n" + String.join("\n", complaints));
    }

    /** No credentials at all: a clear state, reported once; nothing is consumed and nothing lost. */
    @Test
    void noCredentialsIsReadinessDownWithTheReasonAndNothingMoves() throws Exception {
        start(Map.of());
        sendOrders("none", 3);

        await(Duration.ofSeconds(30), () -> sqsCheck().contains("\"cause\":\"credentials\""));
        assertTrue(sqsCheck().contains("none of the SDK's default providers is set up"), sqsCheck());
        Thread.sleep(8_000); // several polls' backoffs
        assertEquals(9, queues.depth("orders.fifo"), "the messages must wait in their queue");
        assertEquals(0, queues.depth("orders-dlq.fifo"));
        assertEquals(0, count("select count(*) from inbox_messages"), "no attempt is recorded for a credentials outage");
        assertEquals(1, lines("SQS cannot be called, no AWS credentials"), "said once, not once per poll");
        assertEquals(0, lines(" ERROR "));
    }

    /**
     * A rollout during a credentials outage: every SQS call, the start-up checks' included, waits on credentials
     * STS refuses. The stop still ends well within the pod's grace period (90 s), the messages stay in their queue,
     * and nothing logs an ERROR on the way out.
     */
    @Test
    void aStopDuringACredentialsOutageIsQuickAndQuiet() throws Exception {
        aws.refuse("AccessDenied");
        start(irsa(webIdentityToken("irsa-token-" + UUID.randomUUID())));
        sendOrders("stop", 2);
        await(Duration.ofSeconds(60), () -> sqsCheck().contains("\"cause\":\"credentials\""));
        Thread.sleep(3_000); // the connector's queue lookups, the statistics' refreshes: each waits on credentials

        Duration took = service.stop(Duration.ofSeconds(60));
        assertTrue(took.compareTo(Duration.ofSeconds(30)) < 0, "the stop took " + took);
        assertEquals(1, lines("txinbox stopped in"), "no orderly shutdown");
        assertEquals(0, lines(" ERROR "));
        assertEquals(6, queues.depth("orders.fifo"));
        assertEquals(0, count("select count(*) from inbox_messages"));
    }

    /**
     * STS refuses IRSA's token (the role's trust policy, then an expired token), and then takes it again: readiness
     * names the provider and STS's answer, the log says each state once, the relay reports it too, nothing counts an
     * attempt, and everything resumes by itself.
     */
    @Test
    void stsRefusalsAreReportedOnceEachAndConsumptionResumes() throws Exception {
        aws.refuse("AccessDenied");
        start(irsa(webIdentityToken("irsa-token-" + UUID.randomUUID())));
        sendOrders("refused", 4);
        pendingOutboxEvent();

        await(Duration.ofSeconds(60), () -> sqsCheck().contains("Not authorized to perform sts:AssumeRoleWithWebIdentity")
                && outboxCheck().contains("\"relay\":\"credentials\""));
        assertTrue(sqsCheck().contains("WebIdentityTokenFileCredentialsProvider (IRSA) failed"), sqsCheck());
        assertTrue(sqsCheck().contains("\"cause\":\"credentials\""), sqsCheck());
        assertTrue(outboxCheck().contains("\"status\":\"DOWN\""), outboxCheck());
        assertTrue(ready() != 200);

        aws.refuse("InvalidIdentityToken");
        await(Duration.ofSeconds(60), () -> sqsCheck().contains("The web identity token that was passed is expired"));
        Thread.sleep(5_000);
        assertEquals(0, count("select count(*) from inbox_messages"));
        assertEquals(0, count("select coalesce(sum(attempts), 0) from outbox_events"), "a credentials outage counted");
        assertEquals(12, queues.depth("orders.fifo"));

        aws.refuse(null);
        awaitShipped(4);
        await(Duration.ofSeconds(60), () -> queues.depth(ElasticMqResource.ORDER_EVENTS) == 13);
        await(Duration.ofSeconds(30), () -> ready() == 200);
        assertOnlyIssuedKeysUsed();
        assertEquals(1, lines("SQS cannot be called, no AWS credentials: WebIdentityTokenFileCredentialsProvider"
                + " (IRSA) failed: Not authorized"), "AccessDenied, said once");
        assertEquals(1, lines("SQS cannot be called, no AWS credentials: WebIdentityTokenFileCredentialsProvider"
                + " (IRSA) failed: The web identity token"), "InvalidIdentityToken, said once");
        assertEquals(1, lines("AWS credentials work again"));
        assertEquals(1, lines("no usable AWS credentials; backing off"), "the relay said it once");
        assertEquals(0, lines(" ERROR "));
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private void awaitShipped(int orders) {
        await(Duration.ofSeconds(90), () -> count("select count(*) from orders where status = 'SHIPPED'") == orders);
        assertEquals(3L * orders, count("select count(*) from inbox_messages where status = 'PROCESSED'"));
    }

    /** An event another pod committed: the relay must send it, so it meets the credentials problem too. */
    private void pendingOutboxEvent() throws Exception {
        service.execute("insert into outbox_events (id, aggregatetype, aggregateid, type, timestamp, payload, sequence,"
                + " partition) values (?, 'order', 'ord-other-pod', 'OrderAccepted', now(), '{}', 1, 0)",
                UUID.randomUUID());
    }

    private void assertOnlyIssuedKeysUsed() {
        assertTrue(aws.refusedSqsCalls().isEmpty(), "SQS calls with keys the stand-in never issued, or expired:\n"
                + String.join("\n", aws.refusedSqsCalls()));
        for (String action : List.of("ReceiveMessage", "DeleteMessageBatch", "SendMessageBatch")) {
            assertFalse(aws.keysUsedFor(action).isEmpty(), action + " never reached SQS");
            assertTrue(aws.issued().keySet().containsAll(aws.keysUsedFor(action)), action);
        }
    }

    private String sqsCheck() {
        return service.readinessCheck("sqs");
    }

    private String outboxCheck() {
        return service.readinessCheck("outbox");
    }

    private int ready() {
        return service.status("/q/health/ready");
    }

    private long lines(String text) throws Exception {
        return service.logLines(text);
    }

    private long count(String sql) {
        return service.count(sql);
    }
}
