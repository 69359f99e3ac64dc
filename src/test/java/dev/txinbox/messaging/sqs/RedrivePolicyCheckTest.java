package dev.txinbox.messaging.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import org.junit.jupiter.api.Test;

/** When the queue's own redrive policy would beat txinbox to the dead-letter queue. No broker needed. */
class RedrivePolicyCheckTest {

    @Test
    void aMaxReceiveCountAtOrAboveTwiceTheAttemptsIsComfortable() {
        assertTrue(RedrivePolicyCheck.problem("orders", "orders.fifo", Optional.of(10), 5).isEmpty());
        assertTrue(RedrivePolicyCheck.problem("orders", "orders.fifo", Optional.of(1000), 5).isEmpty());
    }

    @Test
    void noRedrivePolicyLeavesDeadLetteringToTxinbox() {
        assertTrue(RedrivePolicyCheck.problem("orders", "orders.fifo", Optional.empty(), 5).isEmpty());
    }

    @Test
    void aTightOneIsAnErrorNamingBothNumbersAndTheFix() {
        String error = RedrivePolicyCheck.problem("orders", "orders.fifo", Optional.of(6), 5).orElseThrow();
        assertTrue(error.contains("after 6 receives"), error);
        assertTrue(error.contains("up to 5 attempts"), error);
        assertTrue(error.contains("maxReceiveCount to 10 or more"), error);
        assertEquals(error, RedrivePolicyCheck.problem("orders", "orders.fifo", Optional.of(6), 5).orElseThrow());
    }
}
