package dev.txinbox.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;

import jakarta.inject.Inject;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import dev.txinbox.outbox.Outbox;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.QuarkusTestResource;
import software.amazon.awssdk.services.sqs.model.Message;

/** Base of the scenario tests: the running service, its database and the broker. */
@QuarkusTestResource(PostgresDatabaseResource.class)
@QuarkusTestResource(ElasticMqResource.class)
public abstract class ServiceTest {

    @Inject
    protected Db db;

    @ConfigProperty(name = "test.sqs-endpoint")
    String endpoint;

    protected TestQueues queues;
    private final List<Message> drained = new ArrayList<>();

    @BeforeEach
    void openQueues() {
        queues = new TestQueues(endpoint);
    }

    @AfterEach
    void closeQueues() {
        queues.close();
    }

    /** Waits for a message matching {@code wanted} in a (dead-letter) queue, draining it; what else came is kept. */
    protected Message awaitMessage(String queue, Predicate<Message> wanted) {
        eventually().until(() -> {
            drained.addAll(queues.drain(queue));
            return drained.stream().anyMatch(wanted);
        });
        return drained.stream().filter(wanted).findFirst().orElseThrow();
    }

    /** The dead-letter copy of the SQS message {@code sourceMessageId}. */
    protected Message awaitDeadLetter(String queue, String sourceMessageId) {
        return awaitMessage(queue, m -> m.messageAttributes().containsKey("txinbox-source-message-id")
                && sourceMessageId.equals(m.messageAttributes().get("txinbox-source-message-id").stringValue()));
    }

    /**
     * Records two events of {@code aggregate}, the first too large for any queue, and waits until the relay has
     * refused it: the aggregate's stream then waits at it, the second behind. Returns their ids in that order.
     */
    protected UUID[] waitingStream(Outbox outbox, String aggregate) {
        UUID[] ids = new UUID[2];
        QuarkusTransaction.requiringNew().run(() -> {
            ids[0] = outbox.record("order", aggregate, "TooLarge", "{\"blob\": \"" + "x".repeat(300_000) + "\"}");
            ids[1] = outbox.record("order", aggregate, "Next", "{}");
        });
        eventually().until(() -> db.count("select attempts from outbox_events where id = ?", ids[0]) == 1);
        return ids;
    }

    protected static ConditionFactory eventually() {
        return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100));
    }
}
