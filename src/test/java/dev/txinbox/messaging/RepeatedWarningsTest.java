package dev.txinbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

import dev.txinbox.support.LogCapture;

/** A fault every message meets is said once a minute per distinct problem, with a count, not once per message. */
class RepeatedWarningsTest {

    private final AtomicLong now = new AtomicLong(1);
    private final RepeatedWarnings warnings = new RepeatedWarnings(Logger.getLogger(RepeatedWarningsTest.class), Duration.ofMinutes(1),
            now::get);

    @Test
    void aThousandRefusedDeletesAreTwoLinesAMinuteNotAThousand() throws Exception {
        try (LogCapture log = LogCapture.of(RepeatedWarningsTest.class)) {
            for (int i = 0; i < 1000; i++) {
                refused("AQEB" + i + "xYz+/receiptHandle0" + i, "RequestThrottled: Rate exceeded (Request ID: r-" + i + ")");
                now.addAndGet(Duration.ofMillis(100).toNanos());
            }
            warnings.sayUnsaid();
            List<String> lines = log.lines().stream().map(LogCapture.Line::message).toList();
            // 100 s of refusals: said at 0 s and at 60 s with what was not said, and the rest once its minute is over.
            assertEquals(2, lines.size(), String.join("\n", lines));
            assertTrue(lines.get(0).startsWith("could not delete message AQEB0xYz"), lines.get(0));
            assertTrue(lines.get(1).endsWith("(and 599 more like it in the last 60 s)"), lines.get(1));

            now.addAndGet(Duration.ofMinutes(1).toNanos());
            warnings.sayUnsaid();
            assertTrue(log.lines().get(2).message().endsWith(": 399 more times in the last 60 s"), log.text());
            now.addAndGet(Duration.ofMinutes(1).toNanos());
            warnings.sayUnsaid();
            assertEquals(3, log.lines().size(), "a problem that stopped is not said again");
        }
    }

    @Test
    void eachDistinctProblemIsSaidOnItsOwn() throws Exception {
        try (LogCapture log = LogCapture.of(RepeatedWarningsTest.class)) {
            refused("h1", "RequestThrottled: Rate exceeded");
            refused("h2", "ReceiptHandleIsInvalid: The receipt handle has expired");
            refused("h3", "RequestThrottled: Rate exceeded");
            assertEquals(2, log.lines().size(), log.text());
            assertTrue(RepeatedWarnings.problem("RequestThrottledException: x").contains("RequestThrottledException"),
                    "a word is not an id");
        }
    }

    private void refused(String handle, String why) {
        warnings.warn(RepeatedWarnings.problem("could not delete messages in orders.fifo (" + why + ")"),
                "could not delete message " + handle + " in orders.fifo (" + why + ")");
    }
}
