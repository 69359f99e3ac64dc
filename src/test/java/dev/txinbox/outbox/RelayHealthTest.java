package dev.txinbox.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import dev.txinbox.outbox.OutboxPublisher.Failure;
import dev.txinbox.outbox.OutboxPublisher.PublishException;
import dev.txinbox.outbox.OutboxRelay.Publishing;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** What each class of failure does to the relay's state (what readiness reads) and to its back-off. No broker. */
class RelayHealthTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final RelayHealth health = new RelayHealth("test-relay", Duration.ofMinutes(10), new OutboxMetrics(registry));

    private static PublishException failure(Failure failure) {
        return new PublishException(failure, failure + " happened", null);
    }

    private double failures(String reason) {
        return registry.counter("txinbox.outbox.failures", "reason", reason).count();
    }

    @Test
    void eachClassOfTheBrokersFailureHasItsOwnState() {
        assertEquals(Publishing.UNAVAILABLE, RelayHealth.publishingOf(Failure.UNAVAILABLE));
        assertEquals(Publishing.CREDENTIALS, RelayHealth.publishingOf(Failure.CREDENTIALS));
        assertEquals(Publishing.CONFIGURATION, RelayHealth.publishingOf(Failure.CONFIGURATION));
        assertEquals(Publishing.UNAVAILABLE, RelayHealth.publishingOf(Failure.REQUEST_REFUSED));
    }

    @Test
    void anOutageBacksOffLongerEachTimeUntilTheBrokerAnswers() {
        health.connected();
        assertEquals(Publishing.OK, health.state().publishing());
        assertEquals(Duration.ofMillis(250), health.brokerFailed(failure(Failure.UNAVAILABLE)));
        assertEquals(Duration.ofMillis(500), health.brokerFailed(failure(Failure.UNAVAILABLE)));
        assertEquals(Publishing.UNAVAILABLE, health.state().publishing());
        assertEquals("UNAVAILABLE happened", health.state().error());
        assertTrue(health.backoffUntil().isAfter(Instant.now()));
        assertEquals(2, failures(OutboxMetrics.UNAVAILABLE), 0.0);

        health.answered();
        assertEquals(Publishing.OK, health.state().publishing());
        assertNull(health.state().error());
        assertEquals(Duration.ofMillis(250), health.brokerFailed(failure(Failure.UNAVAILABLE)), "a new outage starts over");
    }

    @Test
    void aMissingQueueIsCountedAsConfigurationAndKeepsItsSinceWhileItLasts() {
        health.brokerFailed(failure(Failure.CONFIGURATION));
        Instant since = health.state().since();
        health.brokerFailed(failure(Failure.CONFIGURATION));
        assertEquals(Publishing.CONFIGURATION, health.state().publishing());
        assertEquals(since, health.state().since());
        assertEquals(2, failures(OutboxMetrics.CONFIGURATION), 0.0);
        assertEquals(0, failures(OutboxMetrics.UNAVAILABLE), 0.0);
    }

    @Test
    void credentialsFailingIsItsOwnStateAndCountedAsUnavailable() {
        health.brokerFailed(failure(Failure.CREDENTIALS));
        assertEquals(Publishing.CREDENTIALS, health.state().publishing());
        assertEquals(1, failures(OutboxMetrics.UNAVAILABLE), 0.0);
    }

    @Test
    void aLostDatabaseEndsTheSessionReleasesThePartitionsAndBacksOff() {
        health.connected();
        health.owned(Set.of(1, 2));
        AtomicBoolean closed = new AtomicBoolean();
        Duration backoff = health.lostDatabase(new SQLException("gone"), Set.of(1, 2), () -> {
            closed.set(true);
            health.owned(Set.of());
        });
        assertTrue(closed.get());
        assertEquals(Duration.ofMillis(250), backoff);
        assertEquals(Publishing.DATABASE_UNAVAILABLE, health.state().publishing());
        assertEquals(Set.of(), health.state().owned());

        health.connected();
        assertEquals(Publishing.OK, health.state().publishing(), "a new session publishes again");
    }

    @Test
    void aNewSessionDoesNotHideABrokerStillFailing() {
        health.brokerFailed(failure(Failure.CONFIGURATION));
        health.connected();
        assertEquals(Publishing.CONFIGURATION, health.state().publishing());
    }

    @Test
    void theOwnedPartitionsShowInTheStateWhateverItsClass() {
        health.owned(Set.of(3, 4));
        health.brokerFailed(failure(Failure.UNAVAILABLE));
        assertEquals(Set.of(3, 4), health.state().owned());
        health.stopped();
        assertEquals(Publishing.STOPPED, health.state().publishing());
        assertEquals(Set.of(), health.state().owned());
    }
}
