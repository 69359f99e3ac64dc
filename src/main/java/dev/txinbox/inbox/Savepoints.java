package dev.txinbox.inbox;

import java.sql.Statement;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import jakarta.transaction.TransactionManager;

import org.hibernate.Session;

/**
 * Savepoints on the current transaction's connection, so that one message of a batch can fail alone.
 * <p>
 * Sent as SQL: the connection pool refuses {@code Connection.rollback(Savepoint)} while the connection
 * is enlisted in a JTA transaction. {@link #set} flushes the persistence context first and
 * {@link #release} flushes before releasing, so that whatever a message's handler wrote reaches
 * PostgreSQL, and fails there, inside its own savepoint. {@link #rollbackTo} clears the persistence
 * context: after a rollback, the entities it holds may describe rows that no longer exist (everything
 * earlier was flushed, so nothing is lost).
 * <p>
 * Some failures cannot be rolled back to a savepoint: Hibernate marks the whole JTA transaction
 * rollback-only when one of its own operations throws (a constraint violation at flush, say).
 * {@link #transactionDoomed} tells the caller, which then runs the batch again without that message.
 */
@ApplicationScoped
class Savepoints {

    private final EntityManager entityManager;
    private final TransactionManager transactions;

    Savepoints(EntityManager entityManager, TransactionManager transactions) {
        this.entityManager = entityManager;
        this.transactions = transactions;
    }

    void set(String name) {
        session().flush();
        execute("savepoint " + name);
    }

    void release(String name) {
        session().flush();
        execute("release savepoint " + name);
    }

    void rollbackTo(String name) {
        execute("rollback to savepoint " + name);
        session().clear();
    }

    boolean transactionDoomed() {
        try {
            int status = transactions.getStatus();
            return status == Status.STATUS_MARKED_ROLLBACK || status == Status.STATUS_ROLLEDBACK
                    || status == Status.STATUS_ROLLING_BACK;
        } catch (SystemException e) {
            return true;
        }
    }

    private void execute(String sql) {
        session().doWork(connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute(sql);
            }
        });
    }

    private Session session() {
        return entityManager.unwrap(Session.class);
    }
}
