package dev.txinbox.ops.retention;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * One pod at a time runs a retention job: each batch's transaction first takes a transaction-level advisory lock,
 * which its commit releases, so a pod that finds it taken stops instead of deleting the same rows beside another.
 */
final class RetentionLock {

    private RetentionLock() {
    }

    /** True when this transaction now holds {@code key}; false when another one does. */
    static boolean tryHold(Connection connection, long key) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement("select pg_try_advisory_xact_lock(?)")) {
            lock.setLong(1, key);
            try (ResultSet rs = lock.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }
}
