package dev.txinbox.outbox;

import java.util.List;
import java.util.NavigableSet;

/**
 * How many of the partitions one relay may own while {@code members} relays share them: partitions / members,
 * rounded up, so that together they own every partition, and none owns more than one above another.
 */
record FairShare(int partitions, int members) {

    FairShare {
        // This relay counts itself, so there is always one; never divide by a count that missed it.
        members = Math.max(1, members);
    }

    int share() {
        return (partitions + members - 1) / members;
    }

    /** What a relay owning {@code owned} gives back, in that order: its highest partitions beyond the share. */
    List<Integer> surplus(NavigableSet<Integer> owned) {
        return owned.descendingSet().stream().limit(Math.max(0, owned.size() - share())).toList();
    }

    /** Whether a relay owning {@code owning} partitions may take another. */
    boolean wantsMore(int owning) {
        return owning < share();
    }
}
