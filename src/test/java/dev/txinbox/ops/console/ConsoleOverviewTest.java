package dev.txinbox.ops.console;

import static dev.txinbox.support.Events.cancelled;
import static dev.txinbox.support.Events.created;
import static dev.txinbox.support.Events.paid;
import static dev.txinbox.support.Events.shipped;
import static dev.txinbox.support.Events.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

import dev.txinbox.support.Metrics;
import io.quarkus.test.junit.QuarkusMock;
import io.quarkus.test.junit.QuarkusTest;

/** The console's overview in a real Chromium: its per-minute plots of outcomes and lag, and where time went. */
@QuarkusTest
class ConsoleOverviewTest extends ConsoleSupport {

    @Inject
    OutcomeHistory history;

    @Test
    void theOverviewPlotsAPointForEveryMinuteOfTraffic() {
        // Seven minutes that ended a minute ago: the first sample clears what was sampled after them, and
        // the real clock carries on from there once the test is over.
        MovableClock clock = new MovableClock(Instant.now().truncatedTo(ChronoUnit.MINUTES).minus(Duration.ofMinutes(8)));
        QuarkusMock.installMockForType(clock, ConsoleClock.class);
        Instant start = clock.now;
        clock.now = start.minus(Duration.ofMinutes(1));
        history.sample(); // whatever came before belongs to the minute before

        // per minute: 2 processed, 4, 1 and a duplicate, nothing, 3, a rejection and a parked event, 2 and a rejection
        String a = unique("ord"), b = unique("ord"), late = unique("ord");
        String aPaid = unique("evt");
        List<Runnable> minutes = List.of(
                () -> {
                    queues.send("orders.fifo", a, created(unique("evt"), a, 1L, 1200));
                    queues.send("orders.fifo", b, created(unique("evt"), b, 1L, 800));
                },
                () -> {
                    queues.send("orders.fifo", a, paid(aPaid, a, 2L, 1200));
                    queues.send("orders.fifo", b, paid(unique("evt"), b, 2L, 800));
                    queues.send("orders.fifo", a, shipped(unique("evt"), a, 3L));
                    queues.send("orders.fifo", late, created(unique("evt"), late, 1L, 100));
                },
                () -> {
                    queues.send("orders.fifo", b, shipped(unique("evt"), b, 3L));
                    queues.send("orders.fifo", a, paid(aPaid, a, 2L, 1200)); // a re-send: duplicate
                },
                () -> {
                },
                () -> {
                    for (int i = 0; i < 3; i++) {
                        String o = unique("ord");
                        queues.send("orders.fifo", o, created(unique("evt"), o, 1L, 100));
                    }
                },
                () -> {
                    queues.send("orders.fifo", late, shipped(unique("evt"), late, 2L)); // unpaid: rejected
                    queues.send("orders.fifo", late, paid(unique("evt"), late, 4L, 100)); // 3 missing: parked
                },
                () -> {
                    queues.send("orders.fifo", a, cancelled(unique("evt"), a, 4L)); // shipped: rejected
                    for (int i = 0; i < 2; i++) {
                        String o = unique("ord");
                        queues.send("orders.fifo", o, created(unique("evt"), o, 1L, 100));
                    }
                });
        long[] processed = { 2, 4, 1, 0, 3, 0, 2 };
        long[] duplicates = { 0, 0, 1, 0, 0, 0, 0 };
        long[] rejected = { 0, 0, 0, 0, 0, 1, 1 };
        long[] parked = { 0, 0, 0, 0, 0, 1, 0 };
        for (int m = 0; m < minutes.size(); m++) {
            clock.now = start.plus(Duration.ofMinutes(m)).plusSeconds(7);
            double processedBefore = Metrics.outcomes("orders", "processed");
            double duplicateBefore = Metrics.outcomes("orders", "duplicate");
            double rejectedBefore = Metrics.outcomes("orders", "rejected");
            double parkedBefore = Metrics.outcomes("orders", "parked");
            minutes.get(m).run();
            long p = processed[m], d = duplicates[m], r = rejected[m], k = parked[m];
            eventually().until(() -> Metrics.outcomes("orders", "processed") >= processedBefore + p
                    && Metrics.outcomes("orders", "duplicate") >= duplicateBefore + d
                    && Metrics.outcomes("orders", "rejected") >= rejectedBefore + r
                    && Metrics.outcomes("orders", "parked") >= parkedBefore + k);
            history.sample();
        }

        signIn();
        browser.open(url("/console"));
        Map<String, String> points = points("outcomes-orders", "processed");
        for (int m = 0; m < processed.length; m++) {
            String minute = start.plus(Duration.ofMinutes(m)).toString();
            assertEquals(Long.toString(processed[m]), points.get(minute), "processed in minute " + m + " of " + points);
        }
        for (int m = 0; m < processed.length; m++) {
            String minute = start.plus(Duration.ofMinutes(m)).toString();
            assertEquals(Long.toString(duplicates[m]), points("outcomes-orders", "duplicate").get(minute), "duplicates " + m);
            assertEquals(Long.toString(rejected[m]), points("outcomes-orders", "rejected").get(minute), "rejected " + m);
            assertEquals(Long.toString(parked[m]), points("outcomes-orders", "parked").get(minute), "parked " + m);
        }
        Map<String, String> lag = points("lag-orders", "lag");
        for (int m = 0; m < processed.length; m++) {
            assertTrue(lag.containsKey(start.plus(Duration.ofMinutes(m)).toString()), "lag point for minute " + m);
        }
        // Nothing was sampled after the last minute of traffic: no point there.
        assertFalse(points.containsKey(start.plus(Duration.ofMinutes(processed.length)).toString()));
        browser.screenshot("overview");

        // The numbers live in the service: a reload shows the same points.
        driver.navigate().refresh();
        assertEquals(points, points("outcomes-orders", "processed"));
        assertTrue(browser.element(By.id("inbox-lag-orders")).getText().contains("lagSeconds"));

        // Where a message's time went in the last sampled minute: every stage listed, and in each one a worker
        // touched, the minute's three messages (a rejected cancellation and two orders created).
        List<String> stages = driver.findElements(By.cssSelector("#stages-orders tr[data-stage]")).stream()
                .map(row -> row.getAttribute("data-stage")).toList();
        assertEquals(List.of("receive buffer", "waiting for worker", "transaction", "commit", "settlement"), stages);
        for (String stage : List.of("waiting for worker", "transaction", "commit")) {
            WebElement row = browser.element(By.cssSelector("#stages-orders tr[data-stage='" + stage + "']"));
            assertEquals("3", row.findElement(By.cssSelector("td")).getText(), stage + ": " + row.getText());
        }
    }


    /** minute → value of one series of one plot, as the SVG's points carry them. */
    private Map<String, String> points(String plot, String series) {
        Map<String, String> points = new HashMap<>();
        for (WebElement point : driver.findElements(By.cssSelector("svg#" + plot + " circle[data-series='" + series + "']"))) {
            points.put(point.getAttribute("data-minute"), point.getAttribute("data-value"));
        }
        return points;
    }
}
