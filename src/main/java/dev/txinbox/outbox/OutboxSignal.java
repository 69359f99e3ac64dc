package dev.txinbox.outbox;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * Tells relays that events were committed, so that they send them at once instead of at their next poll. The
 * relays of this process are rung directly by the after-commit hook of {@link Outbox}; those of other pods through
 * PostgreSQL: a transaction that recorded events for a partition no relay of this process owns notifies
 * {@link #CHANNEL} with the partitions, as part of its commit, and every pod's {@link OutboxListener} rings its
 * relays that own one of them.
 */
@ApplicationScoped
public class OutboxSignal {

    /** The PostgreSQL notification channel; the payload lists the partitions written, comma-separated. */
    public static final String CHANNEL = "txinbox_outbox";

    private record Local(Wakeup wakeup, Supplier<Set<Integer>> owned) {
    }

    private final List<Local> relays = new CopyOnWriteArrayList<>();

    /** Rings every relay of this process. */
    public void wake() {
        relays.forEach(relay -> relay.wakeup().ring());
    }

    /** Rings the relays of this process that own one of {@code partitions}. */
    void wake(Collection<Integer> partitions) {
        for (Local relay : relays) {
            Set<Integer> owned = relay.owned().get();
            if (partitions.stream().anyMatch(owned::contains)) {
                relay.wakeup().ring();
            }
        }
    }

    /**
     * Whether a commit writing to {@code partitions} must tell other pods: unless the relays of this process own
     * all of them. An owner changes only after the one before it let go (advisory locks), so a partition owned here
     * now is owned by no other pod, and one that passes to another pod after this check is read by its new owner as
     * soon as it takes it.
     */
    boolean othersMayOwn(Collection<Integer> partitions) {
        for (Integer partition : partitions) {
            if (relays.stream().noneMatch(relay -> relay.owned().get().contains(partition))) {
                return true;
            }
        }
        return false;
    }

    void register(Wakeup wakeup, Supplier<Set<Integer>> owned) {
        relays.add(new Local(wakeup, owned));
    }

    void unregister(Wakeup wakeup) {
        relays.removeIf(relay -> relay.wakeup() == wakeup);
    }
}
