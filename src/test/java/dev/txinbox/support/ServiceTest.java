package dev.txinbox.support;

import java.time.Duration;

import jakarta.inject.Inject;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import io.quarkus.test.common.QuarkusTestResource;

/** Base of the scenario tests: the running service, its database and the broker. */
@QuarkusTestResource(PostgresDatabaseResource.class)
@QuarkusTestResource(ElasticMqResource.class)
public abstract class ServiceTest {

    @Inject
    protected Db db;

    @ConfigProperty(name = "txinbox.test.sqs-endpoint")
    String endpoint;

    protected TestQueues queues;

    @BeforeEach
    void openQueues() {
        queues = new TestQueues(endpoint);
    }

    @AfterEach
    void closeQueues() {
        queues.close();
    }

    protected static ConditionFactory eventually() {
        return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100));
    }
}
