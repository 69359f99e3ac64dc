package dev.txinbox.outbox;

import static dev.txinbox.support.Events.unique;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.DriverManager;
import java.time.Duration;
import java.util.UUID;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.support.ElasticMqResource;
import dev.txinbox.support.Metrics;
import dev.txinbox.support.ServiceTest;
import dev.txinbox.support.Settings;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;

/**
 * A relay with its poll and its partition claims an hour apart, in place of the embedded one (which polls), so that
 * nothing but a commit's wake-up (or the end of a backoff) can make it look: an event that reaches the queue was sent
 * because its commit said so, to this pod's relay or, through PostgreSQL, to another pod's. And a broker outage: the
 * embedded relay backs off, reports it, and counts no attempt against the event; a relay that does not poll sends
 * when its backoff ends.
 */
@QuarkusTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OutboxWakeAndOutageTest extends ServiceTest {

    @Inject
    Outbox outbox;

    @Inject
    EmbeddedRelay embedded;

    @Inject
    TxinboxConfig config;

    @Inject
    OutboxSignal signal;

    @Inject
    OutboxPublisher publisher;

    @Inject
    OutboxMetrics metrics;

    @Inject
    ObjectMapper mapper;

    @ConfigProperty(name = "quarkus.datasource.jdbc.url")
    String url;

    @ConfigProperty(name = "quarkus.datasource.username")
    String user;

    @ConfigProperty(name = "quarkus.datasource.password")
    String password;

    private OutboxMessages published;

    @BeforeEach
    void collect() {
        published = new OutboxMessages(queues);
    }

    /** A relay as the embedded one is built, rung through {@code rungBy}, that does not poll. */
    private OutboxRelay notPolling(String name, OutboxSignal rungBy) {
        return new OutboxRelay(name, () -> DriverManager.getConnection(url, user, password), publisher,
                Settings.notPolling(config.outbox()), rungBy, metrics, mapper);
    }

    @Test
    @Order(1)
    void aCommitWakesTheRelay() {
        // In place of the embedded relay, on this pod's signal (which its commits ring), one that does not poll.
        OutboxRelay local = embedded.relay().orElseThrow();
        local.stop(Duration.ofSeconds(10));
        OutboxRelay relay = notPolling("outbox-relay-not-polling", signal);
        try {
            relay.start();
            eventually().until(() -> relay.state().owned().size() == 16);
            for (int i = 0; i < 3; i++) {
                String a = unique("agg");
                UUID id = QuarkusTransaction.requiringNew().call(() -> outbox.record("order", a, "Woken", "{}"));
                eventually().until(() -> published.of(a).size() == 1);
                assertTrue(published.of(a).get(0).body().contains(id.toString()));
            }
        } finally {
            relay.stop(Duration.ofSeconds(10));
            local.start();
        }
        eventually().until(() -> local.state().owned().size() == 16);
    }

    @Test
    @Order(2)
    void aBrokerOutageBacksOffCountsNoAttemptAndPublishingResumes() {
        String a = unique("agg");
        double unavailable = Metrics.value("txinbox_outbox_failures_total", "reason", "unavailable");
        ElasticMqResource.stopBroker();
        UUID id;
        try {
            id = QuarkusTransaction.requiringNew().call(() -> outbox.record("order", a, "DuringOutage", "{}"));
            eventually().atMost(Duration.ofSeconds(60)).until(() -> "unavailable".equals(given().get("/q/health/ready")
                    .then().extract().<String> path("checks.find { it.name == 'outbox' }.data.relay")));
            assertTrue(Metrics.value("txinbox_outbox_failures_total", "reason", "unavailable") > unavailable);
            assertEquals(0, db.count("select attempts from outbox_events where id = ?", id));
            assertEquals(1, db.count("select count(*) from outbox_events where id = ? and published_at is null", id));
        } finally {
            ElasticMqResource.startBroker();
        }
        // The backoff ends (at most 30 s) and the event goes, with no attempt counted against it.
        eventually().atMost(Duration.ofSeconds(60)).until(() -> published.of(a).size() == 1);
        assertEquals(0, db.count("select attempts from outbox_events where id = ?", id));
        eventually().until(() -> "ok".equals(given().get("/q/health/ready").then().extract()
                .<String> path("checks.find { it.name == 'outbox' }.data.relay")));
    }

    @Test
    @Order(3)
    void aCommitWakesTheRelayOfAnotherPodThatOwnsItsPartition() {
        // This pod lets go of every partition; "another pod" (a relay and a listener rung through a signal of their
        // own, which this pod's commits do not ring) takes them all. Only PostgreSQL can tell it of a commit here.
        OutboxRelay local = embedded.relay().orElseThrow();
        local.stop(Duration.ofSeconds(10));
        OutboxSignal otherPod = new OutboxSignal();
        OutboxRelay remote = notPolling("outbox-relay-other-pod", otherPod);
        OutboxListener listener = embedded.newListener("outbox-listener-other-pod", otherPod);
        try {
            remote.start();
            listener.start();
            eventually().until(() -> remote.state().owned().size() == 16 && listener.listening());
            for (int i = 0; i < 3; i++) {
                String a = unique("agg");
                UUID id = QuarkusTransaction.requiringNew().call(() -> outbox.record("order", a, "WokenElsewhere", "{}"));
                eventually().until(() -> published.of(a).size() == 1);
                assertTrue(published.of(a).get(0).body().contains(id.toString()));
            }
        } finally {
            listener.stop(Duration.ofSeconds(10));
            remote.stop(Duration.ofSeconds(10));
            local.start();
        }
        eventually().until(() -> local.state().owned().size() == 16);
    }

    @Test
    @Order(4)
    void aRelayThatDoesNotPollSendsWhenTheBackoffOfAnOutageEnds() {
        // The embedded relay's claims (every 500 ms here) would make it look anyway; this one has only its backoff.
        OutboxRelay local = embedded.relay().orElseThrow();
        local.stop(Duration.ofSeconds(10));
        OutboxRelay relay = notPolling("outbox-relay-not-polling", signal);
        String a = unique("agg");
        try {
            relay.start();
            eventually().until(() -> relay.state().owned().size() == 16);
            ElasticMqResource.stopBroker();
            UUID id;
            try {
                id = QuarkusTransaction.requiringNew().call(() -> outbox.record("order", a, "DuringOutage", "{}"));
                eventually().atMost(Duration.ofSeconds(60))
                        .until(() -> relay.state().publishing() == OutboxRelay.Publishing.UNAVAILABLE);
                assertEquals(0, db.count("select attempts from outbox_events where id = ?", id));
            } finally {
                ElasticMqResource.startBroker();
            }
            // Nothing but the end of its backoff (at most 30 s) wakes it now: no commit, no poll, no claim.
            eventually().atMost(Duration.ofSeconds(60)).until(() -> published.of(a).size() == 1);
            assertTrue(published.of(a).get(0).body().contains(id.toString()));
            assertEquals(0, db.count("select attempts from outbox_events where id = ?", id));
            eventually().until(() -> relay.state().publishing() == OutboxRelay.Publishing.OK);
        } finally {
            relay.stop(Duration.ofSeconds(10));
            local.start();
        }
        eventually().until(() -> local.state().owned().size() == 16);
    }
}
