package dev.txinbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * Found by the chaos suite (SIGTERM scenario): at shutdown, a message queued behind a running message of
 * its own group was dropped, not handed back, and nobody could process it for a whole visibility
 * timeout. Every task submitted before the stop must still run (the receiver then hands its message
 * back at once).
 */
class GroupDispatcherShutdownTest {

    @Test
    void tasksQueuedBehindTheirGroupStillRunWhenTheDispatcherShutsDown() throws Exception {
        GroupDispatcher dispatcher = new GroupDispatcher("test", 2, 10);
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        List<String> ran = new CopyOnWriteArrayList<>();
        dispatcher.submit("order-1", () -> {
            running.countDown();
            await(finish);
            ran.add("first of order-1");
        });
        dispatcher.submit("order-1", () -> ran.add("second of order-1"));
        dispatcher.submit("order-1", () -> ran.add("third of order-1"));
        dispatcher.submit("order-2", () -> ran.add("only of order-2"));
        assertTrue(running.await(5, TimeUnit.SECONDS));

        Thread stopper = new Thread(() -> dispatcher.shutdown(Duration.ofSeconds(10)));
        stopper.start();
        Thread.sleep(200); // the shutdown has begun while the first task of order-1 still runs
        finish.countDown();
        stopper.join(15_000);

        assertEquals(List.of("first of order-1", "second of order-1", "third of order-1"),
                ran.stream().filter(t -> t.endsWith("order-1")).toList(), "in order, none dropped");
        assertTrue(ran.contains("only of order-2"));
        assertEquals(4, ran.size());
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
