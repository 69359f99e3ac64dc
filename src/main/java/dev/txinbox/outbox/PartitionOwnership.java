package dev.txinbox.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

import org.jboss.logging.Logger;

/**
 * Which partitions this relay sends. It owns a partition while its session holds the advisory lock
 * {@code (PARTITION_KEY, partition)}, so the partitions of a crashed pod pass to the others with its session, and no
 * two relays ever send the same aggregate. Every relay also holds a membership lock, by which each counts the
 * others; each takes no more than its {@link FairShare} and gives back its surplus when another relay joins.
 */
final class PartitionOwnership {

    // The relay's category: what operators filter and alert on.
    private static final Logger LOG = Logger.getLogger(OutboxRelay.class);

    /** Advisory lock class of the partitions: "txob". */
    static final int PARTITION_KEY = 0x74786f62;
    /** Advisory lock class of the relay instances, one lock per session: "txom". */
    static final int MEMBER_KEY = 0x74786f6d;

    private static final String MEMBERS = """
            select count(distinct pid) from pg_locks
             where locktype = 'advisory' and classid = ?::int::oid and objsubid = 2 and granted
               and database = (select oid from pg_database where datname = current_database())""";

    private final String relay;
    private final int partitions;
    private final Consumer<Set<Integer>> changed;
    private final TreeSet<Integer> owned = new TreeSet<>();
    private boolean member;

    /** {@code changed} hears the owned partitions whenever they change, before a partition is let go. */
    PartitionOwnership(String relay, int partitions, Consumer<Set<Integer>> changed) {
        this.relay = relay;
        this.partitions = partitions;
        this.changed = changed;
    }

    /** The partitions owned now, in order (a live view, for the relay's thread). */
    NavigableSet<Integer> owned() {
        return Collections.unmodifiableNavigableSet(owned);
    }

    /** Takes free partitions up to this relay's fair share and gives back what exceeds it. */
    void claim(Connection connection) throws SQLException {
        if (!member) {
            // Keyed by the session's pid, so every relay holds one: pg_locks then counts the relays.
            try (Statement s = connection.createStatement()) {
                s.executeQuery("select pg_advisory_lock(" + MEMBER_KEY + ", pg_backend_pid())").close();
            }
            member = true;
        }
        FairShare fair = new FairShare(partitions, members(connection));
        for (int surplus : fair.surplus(owned)) {
            // Said before let go: a commit here that still counts on this relay would not tell the next owner.
            owned.remove(surplus);
            changed.accept(owned);
            lock(connection, "pg_advisory_unlock", surplus);
            LOG.infof("outbox relay %s: gave partition %d back (%d relays share %d partitions)", relay, surplus,
                    fair.members(), partitions);
        }
        for (int partition = 0; partition < partitions && fair.wantsMore(owned.size()); partition++) {
            if (!owned.contains(partition) && lock(connection, "pg_try_advisory_lock", partition)) {
                owned.add(partition);
                LOG.debugf("outbox relay %s: owns partition %d", relay, partition);
            }
        }
        changed.accept(owned);
    }

    /** The session ended: its locks, and with them every partition and the membership, are gone. */
    void released() {
        owned.clear();
        changed.accept(owned);
        member = false;
    }

    private static int members(Connection connection) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(MEMBERS)) {
            ps.setInt(1, MEMBER_KEY);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    private static boolean lock(Connection connection, String function, int partition) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("select " + function + "(?, ?)")) {
            ps.setInt(1, PARTITION_KEY);
            ps.setInt(2, partition);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }
}
