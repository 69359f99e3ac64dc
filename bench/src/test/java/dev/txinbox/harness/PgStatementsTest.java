package dev.txinbox.harness;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which statements open and end a transaction, as pg_stat_statements shows them: the basis of the added ends. */
class PgStatementsTest {

    @Test
    void transactionControlIsToldFromSavepointsAndQueries() {
        for (String begin : new String[] { "BEGIN", "begin", "START TRANSACTION", "begin isolation level serializable" }) {
            assertTrue(PgStatements.begins(begin), begin);
            assertFalse(PgStatements.ends(begin), begin);
        }
        for (String end : new String[] { "COMMIT", "commit;", "ROLLBACK", "END", "abort" }) {
            assertTrue(PgStatements.ends(end), end);
            assertFalse(PgStatements.begins(end), end);
        }
        for (String other : new String[] { "rollback to savepoint txinbox_message", "release savepoint txinbox_message",
                "savepoint txinbox_message", "select last_sequence from order_stream_state where order_id = $1",
                "update orders set status = 'COMMITTED' where id = $1", "beginning" }) {
            assertFalse(PgStatements.begins(other) || PgStatements.ends(other), other);
        }
    }
}
