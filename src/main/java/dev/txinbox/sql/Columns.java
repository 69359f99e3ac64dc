package dev.txinbox.sql;

import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;

/**
 * Values of the rows a native query returns. Hibernate hands a {@code timestamptz} column back as an
 * {@link Instant}, an {@link OffsetDateTime} or a {@link Timestamp}, depending on the query and its version;
 * the operator reads (in {@code ops}) and the outbox's own ({@code outbox}) both need an {@link Instant}.
 */
public final class Columns {

    private Columns() {
    }

    /** The instant of a timestamp column's value; null for SQL NULL. */
    public static Instant instant(Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof Instant instant) {
            return instant;
        }
        if (value instanceof OffsetDateTime offset) {
            return offset.toInstant();
        }
        return ((Timestamp) value).toInstant();
    }
}
