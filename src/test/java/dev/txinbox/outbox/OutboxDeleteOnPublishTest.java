package dev.txinbox.outbox;

import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.txinbox.inbox.EventParser;
import dev.txinbox.support.Profiles;
import dev.txinbox.support.ServiceTest;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * As shipped, with no published history kept, the relay deletes what it publishes: the events still reach the queue
 * once each, per aggregate in order, and the table keeps only what is pending, while a pending stream's later events
 * wait for their head as they do when published rows are kept.
 */
@QuarkusTest
@TestProfile(Profiles.SampledAndDeleteOnPublish.class)
class OutboxDeleteOnPublishTest extends ServiceTest {

    @Inject
    Outbox outbox;

    @Inject
    EventParser parser;

    @Test
    void publishedEventsLeaveTheTableAndStillArriveOnceInOrder() {
        OutboxMessages published = new OutboxMessages(queues);
        String a = unique("agg"), b = unique("agg");
        List<UUID> ofA = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            int n = i;
            QuarkusTransaction.requiringNew().run(() -> {
                ofA.add(outbox.record("order", a, "Step", "{\"n\": " + n + "}"));
                outbox.record("order", b, "Step", "{\"n\": " + n + "}");
            });
        }
        eventually().until(() -> published.of(a).size() >= ofA.size() && published.of(b).size() >= 15);

        assertEquals(ofA.stream().map(UUID::toString).toList(),
                published.of(a).stream().map(m -> parser.parse(m.body(), null).eventId()).toList());
        assertEquals(IntStream.rangeClosed(1, 15).mapToObj(Long::valueOf).toList(),
                published.of(b).stream().map(m -> parser.parse(m.body(), null).sequence()).toList());
        eventually().until(() -> db.count("select count(*) from outbox_events where aggregateid in (?, ?)", a, b) == 0);
        // The counters live on: a deleted row never hands out its aggregate's numbers again.
        QuarkusTransaction.requiringNew().run(() -> outbox.record("order", a, "Step", "{\"n\": 15}"));
        eventually().until(() -> published.of(a).size() == 16);
        assertEquals(16L, parser.parse(published.of(a).get(15).body(), null).sequence());
    }
}
