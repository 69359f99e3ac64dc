package dev.txinbox.messaging;

import static dev.txinbox.support.Events.created;
import static dev.txinbox.support.Events.paid;
import static dev.txinbox.support.Events.shipped;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.stream.Collectors;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import dev.txinbox.support.LogCapture;
import dev.txinbox.support.PoisonMessages;
import dev.txinbox.support.PoisonMessages.Poison;
import dev.txinbox.support.ServiceTest;
import dev.txinbox.support.TestQueues.Outgoing;
import io.quarkus.test.junit.QuarkusTest;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * 1,000 generated bad messages (PoisonMessages: random bytes, broken and hostile JSON, wrong types,
 * missing fields, overflowing numbers, oversized ids, control characters, oversized bodies, bad
 * event-id attributes) interleaved, group by group, with the events of 100 orders. Every bad one must
 * reach the dead-letter queue at its first delivery with a reason naming its problem; every order must
 * reach its final state; the service must stay live and ready throughout, with a bounded heap and at
 * most one WARN line (and no stack trace) per bad message. The figures go to
 * target/poison-flood.txt (docs/RELIABILITY.md quotes them).
 */
@QuarkusTest
class PoisonFloodTest extends ServiceTest {

    private static final int BAD = 1_000;
    private static final int ORDERS = 100;

    @ConfigProperty(name = "quarkus.http.test-port")
    int port;

    @Test
    void aThousandBadMessagesAreDeadLetteredWithTheirReasonsAndEveryOrderCompletes() throws Exception {
        List<Poison> poisons = PoisonMessages.generate(new Random(20261203L), BAD, "flood");
        Map<String, Poison> bySqsId = new HashMap<>();
        List<Outgoing> stream = new ArrayList<>();
        List<Poison> streamPoisons = new ArrayList<>();
        String run = Long.toString(System.nanoTime(), 36);
        int perOrder = BAD / ORDERS;
        for (int o = 0; o < ORDERS; o++) {
            String order = "ord-flood-" + run + "-" + o;
            List<String> good = List.of(created("c-" + order, order, 1L, 500), paid("p-" + order, order, 2L, 500),
                    shipped("s-" + order, order, 3L));
            for (int i = 0; i < perOrder; i++) {
                Poison poison = poisons.get(o * perOrder + i);
                if (i % 4 == 0) {
                    stream.add(new Outgoing(order, good.get(i / 4), Map.of()));
                    streamPoisons.add(null);
                }
                stream.add(new Outgoing(order, poison.body(), poison.attributes()));
                streamPoisons.add(poison);
            }
        }

        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long heapBefore = usedHeapAfterGc(memory);
        Health health = new Health(port);
        LogCapture log = LogCapture.all();
        long started = System.nanoTime();
        try {
            List<String> ids = queues.sendAll("orders.fifo", stream);
            for (int i = 0; i < ids.size(); i++) {
                if (streamPoisons.get(i) != null) {
                    bySqsId.put(ids.get(i), streamPoisons.get(i));
                }
            }
            Map<String, Message> deadLetters = new HashMap<>();
            try {
                Awaitility.await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).until(() -> {
                    for (Message m : queues.drain("orders-dlq.fifo")) {
                        var source = m.messageAttributes().get("txinbox-source-message-id");
                        if (source != null && bySqsId.containsKey(source.stringValue())) {
                            deadLetters.put(source.stringValue(), m);
                        }
                    }
                    return deadLetters.size() == BAD && db.count("select count(*) from orders where id like ?"
                            + " and status = 'SHIPPED'", "ord-flood-" + run + "-%") == ORDERS;
                });
            } catch (ConditionTimeoutException e) {
                List<String> missing = new ArrayList<>();
                bySqsId.forEach((sqsId, poison) -> {
                    if (!deadLetters.containsKey(sqsId) && missing.size() < 20) {
                        missing.add(poison.category() + " -> " + db.rows("select status, attempt_count, error_text"
                                + " from inbox_messages where source_message_id = ?", sqsId) + " body: "
                                + poison.body().substring(0, Math.min(300, poison.body().length())));
                    }
                });
                throw new AssertionError((BAD - deadLetters.size()) + " bad messages not dead-lettered, "
                        + db.count("select count(*) from orders where id like ? and status = 'SHIPPED'", "ord-flood-" + run + "-%")
                        + " of " + ORDERS + " orders shipped; e.g.\n" + String.join("\n", missing), e);
            }
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            eventually().until(() -> queues.depth("orders.fifo") == 0);
            health.stop();
            log.close();
            List<LogCapture.Line> warnings = log.lines().stream().filter(l -> l.atLeast(Level.WARNING)).toList();
            long stackTraces = warnings.stream().filter(LogCapture.Line::stackTrace).count();
            List<LogCapture.Line> examples = warnings.stream().limit(5).toList();
            long heapAfter = usedHeapAfterGc(memory);

            Map<String, Integer> byCategory = new TreeMap<>();
            List<String> wrong = new ArrayList<>();
            for (Map.Entry<String, Message> entry : deadLetters.entrySet()) {
                Poison poison = bySqsId.get(entry.getKey());
                Message copy = entry.getValue();
                String reason = copy.messageAttributes().get("txinbox-reason").stringValue();
                String error = copy.messageAttributes().get("txinbox-error").stringValue();
                String attempts = copy.messageAttributes().get("txinbox-attempts").stringValue();
                if (!"invalid message".equals(reason) || !poison.expected().matcher(error).find() || !"1".equals(attempts)
                        || !poison.body().equals(copy.body())) {
                    wrong.add(poison.category() + ": reason=" + reason + ", attempts=" + attempts + ", error=" + error);
                }
                byCategory.merge(poison.category(), 1, Integer::sum);
            }
            assertTrue(wrong.isEmpty(), wrong.size() + " dead letters without the expected reason, e.g.\n"
                    + wrong.stream().limit(15).collect(Collectors.joining("\n")));
            assertEquals(ORDERS, db.count("select count(*) from payment_audit where order_id like ?", "ord-flood-" + run + "-%"));
            assertEquals(3L * ORDERS, db.count("select count(*) from inbox_messages where consumer_name = 'orders'"
                    + " and status = 'PROCESSED' and aggregate_id like ?", "ord-flood-" + run + "-%"));

            assertTrue(health.failures.isEmpty(), "health not UP during the flood: " + health.failures);
            assertTrue(health.probes.get() > 10, "health was hardly probed: " + health.probes.get());
            assertTrue(stackTraces == 0, stackTraces + " log records with a stack trace, e.g. " + examples);
            assertTrue(warnings.size() <= BAD, warnings.size() + " WARN+ lines for " + BAD + " bad messages, e.g. "
                    + examples);
            long growth = heapAfter - heapBefore;
            assertTrue(growth < 64L * 1024 * 1024, "heap grew by " + growth / 1024 / 1024 + " MiB");

            String figures = String.format("""
                    poison flood: %d bad messages interleaved with %d valid (%d orders x 3 events) in %d groups
                    sent %d, dead-lettered with the expected reason at the first delivery %d, processed %d valid
                    took %.1f s; liveness and readiness probed %d times, all UP
                    log: %d WARN/ERROR lines (%.2f per bad message), %d with a stack trace
                    heap after GC: %d MiB before, %d MiB after; peak used %d MiB
                    by category: %s
                    """, BAD, 3 * ORDERS, ORDERS, ORDERS, stream.size(), deadLetters.size(), 3 * ORDERS,
                    took.toMillis() / 1000.0, health.probes.get(), warnings.size(), warnings.size() / (double) BAD,
                    stackTraces, heapBefore >> 20, heapAfter >> 20, health.peakHeap.get() >> 20, byCategory);
            Files.writeString(Path.of("target/poison-flood.txt"), figures);
            System.out.print(figures);
        } finally {
            health.stop();
            log.close();
        }
    }

    private static long usedHeapAfterGc(MemoryMXBean memory) {
        System.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }

    /** Probes liveness and readiness four times a second, and samples the heap. */
    private static final class Health {
        final List<String> failures = new ArrayList<>();
        final AtomicLong probes = new AtomicLong();
        final AtomicLong peakHeap = new AtomicLong();
        private final ScheduledExecutorService prober = Executors.newSingleThreadScheduledExecutor(
                runnable -> new Thread(runnable, "health-probe"));

        Health(int port) {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
            prober.scheduleWithFixedDelay(() -> {
                for (String path : List.of("/q/health/live", "/q/health/ready")) {
                    try {
                        HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(5)).build(),
                                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                        if (response.statusCode() != 200) {
                            synchronized (failures) {
                                failures.add(path + " " + response.statusCode() + " " + response.body());
                            }
                        }
                    } catch (Exception e) {
                        synchronized (failures) {
                            failures.add(path + " " + e);
                        }
                    }
                }
                probes.incrementAndGet();
                peakHeap.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
            }, 0, 250, TimeUnit.MILLISECONDS);
        }

        void stop() throws InterruptedException {
            prober.shutdown();
            if (!prober.awaitTermination(30, TimeUnit.SECONDS)) {
                prober.shutdownNow();
            }
        }
    }
}
