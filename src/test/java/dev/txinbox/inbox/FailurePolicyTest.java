package dev.txinbox.inbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.sql.SQLException;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.support.Settings;

/** How a failure is sorted: the message's fault, the database's absence, or worth another attempt. */
class FailurePolicyTest {

    private final FailurePolicy policy = new FailurePolicy();
    private final TxinboxConfig.Retry retry = Settings.retry(Duration.ofSeconds(1), Duration.ofSeconds(60), 5);

    private static RuntimeException wrapped(String sqlState) {
        return new IllegalStateException("flush failed", new SQLException("ERROR: refused", sqlState));
    }

    @ParameterizedTest
    @ValueSource(strings = { "22021", "22008", "22001", "22P02", "23502", "23514", "54000" })
    void dataThePostgresRefusesIsTheMessagesFault(String state) {
        assertTrue(policy.isPermanent(wrapped(state)));
        assertFalse(policy.isOutage(wrapped(state)));
        assertTrue(policy.describe(wrapped(state)).startsWith("the database refused the message's data (SQLState " + state));
    }

    @ParameterizedTest
    @ValueSource(strings = { "23505", "23503", "40001", "40P01", "42P01" })
    void conflictsWithOtherTransactionsAndBugsAreTransient(String state) {
        assertFalse(policy.isPermanent(wrapped(state)));
        assertFalse(policy.isOutage(wrapped(state)));
    }

    @ParameterizedTest
    @ValueSource(strings = { "08006", "08001", "57P01", "53300" })
    void anUnreachableDatabaseIsAnOutage(String state) {
        assertTrue(policy.isOutage(wrapped(state)));
        assertFalse(policy.isPermanent(wrapped(state)));
    }

    @Test
    void aRefusedConnectionIsAnOutageAndInvalidInputIsPermanentAnywhereInTheChain() {
        assertTrue(policy.isOutage(new RuntimeException(new ConnectException("refused"))));
        assertTrue(policy.isPermanent(new RuntimeException(new InvalidMessageException("bad"))));
    }

    @Test
    void retryDelaysGrowAreJitteredAndCapped() {
        for (int i = 0; i < 200; i++) {
            long first = policy.retryDelay(1, retry).toSeconds();
            long fourth = policy.retryDelay(4, retry).toSeconds();
            long late = policy.retryDelay(30, retry).toSeconds();
            assertTrue(first >= 1 && first <= 1, "attempt 1: " + first);
            assertTrue(fourth >= 4 && fourth <= 8, "attempt 4: " + fourth);
            assertTrue(late >= 30 && late <= 60, "attempt 30: " + late);
        }
    }

    @Test
    void attemptsAreExhaustedAtTheMaximum() {
        assertFalse(policy.exhausted(4, retry));
        assertTrue(policy.exhausted(5, retry));
    }

    @Test
    void theDescriptionIsTheRootCauseBounded() {
        String text = policy.describe(new RuntimeException("outer", new IllegalArgumentException("x".repeat(5000))));
        assertTrue(text.startsWith("java.lang.RuntimeException: java.lang.IllegalArgumentException: xxx"), text);
        assertEquals(FailurePolicy.MAX_ERROR_LENGTH + 1, text.length());
    }
}
