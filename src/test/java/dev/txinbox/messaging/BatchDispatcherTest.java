package dev.txinbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How messages become batches: whatever is ready, a group's messages together and in order, a group never
 * in two batches at once, no waiting for a batch to fill, and nothing dropped at shutdown. Plain threads,
 * no Quarkus; every wait is on a latch or a queue, never on the clock.
 */
class BatchDispatcherTest {

    /** An item: its group and a name. */
    private record Item(String group, String name) {
    }

    private final BlockingQueue<List<String>> batches = new LinkedBlockingQueue<>();
    private BatchDispatcher<Item> dispatcher;

    @AfterEach
    void stop() {
        if (dispatcher != null) {
            dispatcher.shutdown(Duration.ofSeconds(5));
        }
    }

    private BatchDispatcher<Item> start(int workers, int maxInFlight, int batchSize, Consumer<List<Item>> work) {
        dispatcher = new BatchDispatcher<>("test", workers, maxInFlight, batchSize, Item::group, batch -> {
            work.accept(batch);
            batches.add(batch.stream().map(Item::name).toList());
        });
        return dispatcher;
    }

    private List<String> nextBatch() throws InterruptedException {
        List<String> batch = batches.poll(5, TimeUnit.SECONDS);
        assertTrue(batch != null, "a batch was processed");
        return batch;
    }

    @Test
    void aLoneMessageGoesAtOnceWithoutWaitingForCompany() throws Exception {
        start(1, 100, 32, batch -> { });
        dispatcher.submit(new Item("g1", "only"));
        assertEquals(List.of("only"), nextBatch());
    }

    @Test
    void whatArrivesWhileTheWorkerIsBusyMakesTheNextBatchWithEachGroupInOrder() throws Exception {
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        start(1, 100, 32, batch -> {
            if (batch.get(0).name().equals("blocker")) {
                firstRunning.countDown();
                await(release);
            }
        });
        dispatcher.submit(new Item("g0", "blocker"));
        assertTrue(firstRunning.await(5, TimeUnit.SECONDS));
        for (String name : List.of("a1", "b1", "a2", "c1", "b2", "a3")) {
            dispatcher.submit(new Item(name.substring(0, 1), name));
        }
        release.countDown();
        assertEquals(List.of("blocker"), nextBatch());
        assertEquals(List.of("a1", "a2", "a3", "b1", "b2", "c1"), nextBatch(),
                "one batch: groups in the order they became ready, each group's messages together, in order");
    }

    @Test
    void aBusyGroupWaitsForItsBatchToFinishWhileOtherGroupsGoOn() throws Exception {
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        start(2, 100, 32, batch -> {
            if (batch.get(0).name().equals("a1")) {
                firstRunning.countDown();
                await(release);
            }
        });
        dispatcher.submit(new Item("a", "a1"));
        assertTrue(firstRunning.await(5, TimeUnit.SECONDS));
        dispatcher.submit(new Item("a", "a2"));
        dispatcher.submit(new Item("b", "b1"));
        assertEquals(List.of("b1"), nextBatch(), "the idle worker takes b, not a2 behind the running a1");
        release.countDown();
        assertEquals(List.of("a1"), nextBatch());
        assertEquals(List.of("a2"), nextBatch());
    }

    @Test
    void theBatchSizeIsACapAndAGroupCutByItWaitsForItsBatch() throws Exception {
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        start(1, 100, 3, batch -> {
            if (batch.get(0).name().equals("blocker")) {
                firstRunning.countDown();
                await(release);
            }
        });
        dispatcher.submit(new Item("g0", "blocker"));
        assertTrue(firstRunning.await(5, TimeUnit.SECONDS));
        for (String name : List.of("b1", "b2", "c1", "c2", "d1")) {
            dispatcher.submit(new Item(name.substring(0, 1), name));
        }
        release.countDown();
        assertEquals(List.of("blocker"), nextBatch());
        assertEquals(List.of("b1", "b2", "c1"), nextBatch());
        assertEquals(List.of("d1", "c2"), nextBatch(), "c2 waited for c1's batch, then queued behind d");
    }

    @Test
    void theChannelIsHeldBackAtMaxInFlightAndLetGoAsBatchesFinish() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        start(1, 2, 32, batch -> await(release));
        assertTrue(dispatcher.submit(new Item("a", "a1")).toCompletableFuture().isDone());
        CompletionStage<Void> full = dispatcher.submit(new Item("b", "b1"));
        assertFalse(full.toCompletableFuture().isDone(), "two in flight: the channel must wait");
        release.countDown();
        full.toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    @Test
    void messagesQueuedBehindTheirGroupStillRunWhenTheDispatcherShutsDown() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        List<String> ran = new CopyOnWriteArrayList<>();
        start(2, 100, 1, batch -> {
            if (batch.get(0).name().equals("first of order-1")) {
                running.countDown();
                await(finish);
            }
            batch.forEach(item -> ran.add(item.name()));
        });
        dispatcher.submit(new Item("order-1", "first of order-1"));
        dispatcher.submit(new Item("order-1", "second of order-1"));
        dispatcher.submit(new Item("order-1", "third of order-1"));
        dispatcher.submit(new Item("order-2", "only of order-2"));
        assertTrue(running.await(5, TimeUnit.SECONDS));

        Thread stopper = new Thread(() -> dispatcher.shutdown(Duration.ofSeconds(10)));
        stopper.start();
        while (!dispatcher.stopping()) {
            Thread.onSpinWait(); // the shutdown has begun while the first message of order-1 still runs
        }
        finish.countDown();
        stopper.join(15_000);

        assertEquals(List.of("first of order-1", "second of order-1", "third of order-1"),
                ran.stream().filter(t -> t.endsWith("order-1")).toList(), "in order, none dropped");
        assertTrue(ran.contains("only of order-2"));
        assertEquals(4, ran.size());
        assertEquals(0, dispatcher.inFlight());
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
