package dev.txinbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** A set-up that cannot work is refused at start, with every problem named. */
class ConsumerSetupCheckTest {

    @Test
    void aSoundSetUpPasses() {
        assertEquals(List.of(), ConsumerSetupCheck.problems(Map.of("orders", consumer("orders.fifo", "orders-dlq.fifo",
                4, 40, Duration.ofSeconds(1), Duration.ofMinutes(5), 5)), name -> true, name -> true));
    }

    @Test
    void everyProblemIsNamedWithItsSetting() {
        List<String> problems = ConsumerSetupCheck.problems(Map.of("payments", consumer("payments.fifo", "payments-dlq",
                0, 0, Duration.ofMinutes(5), Duration.ofSeconds(1), 0)), name -> false, name -> false);
        String all = String.join("\n", problems);
        assertTrue(all.contains("consumer payments has no InboxHandler"), all);
        assertTrue(all.contains("mp.messaging.incoming.payments.connector=smallrye-sqs"), all);
        assertTrue(all.contains("txinbox.consumers.payments.dlq must be a FIFO queue"), all);
        assertTrue(all.contains("txinbox.consumers.payments.parallelism must be at least 1"), all);
        assertTrue(all.contains("txinbox.consumers.payments.retry:"), all);
        assertEquals(5, problems.size(), all);
        assertTrue(ConsumerSetupCheck.problems(Map.of(), n -> true, n -> true).get(0).contains("no consumer"));
    }

    private static ConsumersConfig.Consumer consumer(String queue, String dlq, int parallelism, int maxInFlight,
            Duration base, Duration cap, int attempts) {
        return new ConsumersConfig.Consumer() {
            public String queue() { return queue; }
            public String dlq() { return dlq; }
            public int parallelism() { return parallelism; }
            public int maxInFlight() { return maxInFlight; }
            public int batchSize() { return 32; }
            public Duration visibilityTimeout() { return Duration.ofSeconds(30); }
            public ConsumersConfig.Retry retry() {
                return new ConsumersConfig.Retry() {
                    public Duration base() { return base; }
                    public Duration cap() { return cap; }
                    public int maxAttempts() { return attempts; }
                };
            }
        };
    }
}
