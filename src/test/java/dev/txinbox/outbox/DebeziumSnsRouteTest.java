package dev.txinbox.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

/**
 * The SNS route's Debezium Server file (deploy/debezium/sns/application.properties) reads the table exactly as the
 * Kafka file does, whose source, router and format settings {@link DebeziumOutboxRouterTest} runs in Debezium's
 * embedded engine against a real PostgreSQL: so that test is the proof of what the SNS route is given. The SNS
 * sink itself is not run here (docs/OUTBOX.md, "The SNS route"); this checks that its settings name what the
 * router makes. Plain JUnit: no database.
 */
class DebeziumSnsRouteTest {

    private static final Path KAFKA = Path.of("deploy/debezium/application.properties");
    private static final Path SNS = Path.of("deploy/debezium/sns/application.properties");

    @Test
    void theSnsRouteReadsTheTableAsTheTestedKafkaRouteDoes() throws IOException {
        Map<String, String> kafka = shared(load(KAFKA));
        Map<String, String> sns = shared(load(SNS));
        assertFalse(kafka.isEmpty());
        assertEquals(kafka, sns, SNS + ": its debezium.source.*, debezium.transforms* and debezium.format.* lines must be "
                + KAFKA + "'s, which DebeziumOutboxRouterTest runs");
    }

    @Test
    void theSinkSendsToOneFifoTopicGroupedByAggregateAndDeduplicatedByEventId() throws IOException {
        Properties sns = load(SNS);
        Properties kafka = load(KAFKA);
        assertEquals("sns", sns.getProperty("debezium.sink.type"));
        assertTrue(sns.getProperty("debezium.sink.sns.topic.arn", "").startsWith("${"),
                "the topic's ARN comes from the environment");
        assertEquals(null, sns.getProperty("debezium.sink.sns.topic.arn.prefix"),
                "no prefix: every record goes to topic.arn (the router's destinations are no valid topic names)");
        // MessageGroupId: no header of the sink's group-id name is placed, so the sink takes the record's key,
        // which the router sets to the aggregate id.
        String groupHeader = sns.getProperty("debezium.sink.sns.fifo.message.group.id.header", "aggregateId");
        String placement = kafka.getProperty("debezium.transforms.outbox.table.fields.additional.placement");
        assertFalse(placement.contains(":header:" + groupHeader), "a header " + groupHeader + " would be the group id");
        assertEquals("aggregateid", kafka.getProperty("debezium.transforms.outbox.table.field.event.key"));
        // MessageDeduplicationId: the router's "id" header, the event id (table.field.event.id).
        assertEquals("id", sns.getProperty("debezium.sink.sns.fifo.message.dedup.id.header"));
        assertEquals("id", kafka.getProperty("debezium.transforms.outbox.table.field.event.id"));
    }

    private static Map<String, String> shared(Properties p) {
        Map<String, String> out = new TreeMap<>();
        for (String name : p.stringPropertyNames()) {
            if (name.startsWith("debezium.source.") || name.startsWith("debezium.transforms")
                    || name.startsWith("debezium.format.")) {
                out.put(name, p.getProperty(name));
            }
        }
        return out;
    }

    private static Properties load(Path file) throws IOException {
        assertTrue(Files.exists(file), file + " is missing");
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        }
        return p;
    }
}
