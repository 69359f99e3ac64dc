package dev.txinbox.ops.console;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;

import dev.txinbox.sql.Columns;
import io.quarkus.narayana.jta.QuarkusTransaction;

/**
 * FAILED and DEAD entries grouped by cause, as NServiceBus ServicePulse groups failed messages: the error
 * (class and message) with what differs from one message to the next taken out, so that a hundred
 * messages failing for one reason make one line with a count, not a hundred lines.
 * <p>
 * A cause is the error text with the entry's own event id and aggregate id, UUIDs (SQS message ids) and
 * every word holding a digit (numbers, generated ids, positions) replaced; white space is folded. Done in
 * SQL, so that grouping takes one pass over the rows whatever their number. A group is named by the MD5
 * of its cause (a name for a URL, not a secret).
 */
@ApplicationScoped
public class FailureGroups {

    /** The normalisation, on a row of inbox_messages. Ids shorter than 4 characters are left alone. */
    private static final String CAUSE = """
            regexp_replace(regexp_replace(regexp_replace(
                case when length(coalesce(aggregate_id, '')) >= 4
                    then replace(case when length(message_id) >= 4 then replace(coalesce(error_text, ''), message_id, '<id>')
                        else coalesce(error_text, '') end, aggregate_id, '<id>')
                    else case when length(message_id) >= 4 then replace(coalesce(error_text, ''), message_id, '<id>')
                        else coalesce(error_text, '') end end,
                '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}', '<id>', 'g'),
                '[A-Za-z_]*[0-9][A-Za-z0-9_]*', '#', 'g'),
                '\\s+', ' ', 'g')
            """;

    private static final String FAILURES = "select consumer_name, message_id, status, received_at,"
            + " coalesce(processed_at, received_at) as last_at, " + CAUSE + " as cause from inbox_messages"
            + " where status in ('FAILED', 'DEAD')";

    /** One cause of one consumer: how many entries have it, by status, when it was first and last seen. */
    public record Group(String consumer, String id, String cause, long failed, long dead, Instant firstSeen,
            Instant lastSeen, List<String> examples) {

        public long total() {
            return failed + dead;
        }
    }

    /** An entry of a group. */
    public record Member(String messageId, String status) {
    }

    private final EntityManager entityManager;

    public FailureGroups(EntityManager entityManager) {
        this.entityManager = entityManager;
    }

    /** The groups of one consumer (all when null), the largest first, at most {@code limit}. */
    public List<Group> groups(String consumer, int limit) {
        return query(consumer, null, limit);
    }

    /** One group of a consumer, if it still has entries. */
    public Optional<Group> group(String consumer, String groupId) {
        return query(consumer, groupId, 1).stream().findFirst();
    }

    private List<Group> query(String consumer, String groupId, int limit) {
        List<Object[]> rows = QuarkusTransaction.requiringNew().call(() -> entityManager.createNativeQuery(
                "select consumer_name, md5(cause), cause, count(*) filter (where status = 'FAILED'),"
                        + " count(*) filter (where status = 'DEAD'), min(received_at), max(last_at),"
                        + " (array_agg(message_id order by received_at desc))[1:3]"
                        + " from (" + FAILURES + " and (cast(?1 as text) is null or consumer_name = ?1)) f"
                        + " where cast(?2 as text) is null or md5(cause) = ?2"
                        + " group by consumer_name, cause order by count(*) desc, max(last_at) desc limit ?3",
                Object[].class).setParameter(1, consumer).setParameter(2, groupId).setParameter(3, limit).getResultList());
        List<Group> groups = new ArrayList<>();
        for (Object[] row : rows) {
            groups.add(new Group((String) row[0], (String) row[1], (String) row[2], ((Number) row[3]).longValue(),
                    ((Number) row[4]).longValue(), Columns.instant(row[5]), Columns.instant(row[6]),
                    List.of((String[]) row[7])));
        }
        return groups;
    }

    /** The entries of a group, the oldest first, at most {@code limit}. */
    public List<Member> members(String consumer, String groupId, int limit) {
        List<Object[]> rows = QuarkusTransaction.requiringNew().call(() -> entityManager.createNativeQuery(
                "select message_id, status from (" + FAILURES + " and consumer_name = ?1) f where md5(cause) = ?2"
                        + " order by received_at, message_id limit ?3", Object[].class)
                .setParameter(1, consumer).setParameter(2, groupId).setParameter(3, limit).getResultList());
        return rows.stream().map(row -> new Member((String) row[0], (String) row[1])).toList();
    }
}
