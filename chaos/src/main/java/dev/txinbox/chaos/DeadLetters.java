package dev.txinbox.chaos;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.txinbox.harness.Sqs;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/**
 * What the dead-letter queue holds against what should be there: each poison message of the stream, once,
 * with the reason txinbox gave. The queue is drained to read it ({@link Sqs#drain}; the scenario's verdict has
 * counted the depth before).
 */
record DeadLetters(long messages, long withReason, long missingPoison, long unexpected, long repeated,
        Map<String, Long> reasons) {

    boolean complete() {
        return withReason == messages && missingPoison == 0 && unexpected == 0;
    }

    static DeadLetters inspect(Sqs sqs, String dlqUrl, List<String> poisonBodies) {
        List<Message> all = sqs.drain(dlqUrl);
        Map<String, Long> expected = new HashMap<>();
        poisonBodies.forEach(b -> expected.merge(b, 1L, Long::sum));
        Map<String, Long> seen = new HashMap<>();
        Map<String, Long> reasons = new HashMap<>();
        long withReason = 0;
        long unexpected = 0;
        for (Message m : all) {
            MessageAttributeValue reason = m.messageAttributes().get("txinbox-reason");
            if (reason != null && reason.stringValue() != null && !reason.stringValue().isBlank()) {
                withReason++;
                reasons.merge(reason.stringValue(), 1L, Long::sum);
            }
            if (!expected.containsKey(m.body())) {
                unexpected++;
            }
            seen.merge(m.body(), 1L, Long::sum);
        }
        long missing = 0;
        long repeated = 0;
        for (Map.Entry<String, Long> e : expected.entrySet()) {
            long got = seen.getOrDefault(e.getKey(), 0L);
            missing += Math.max(0, e.getValue() - got);
            repeated += Math.max(0, got - e.getValue());
        }
        return new DeadLetters(all.size(), withReason, missing, unexpected, repeated, reasons);
    }
}
