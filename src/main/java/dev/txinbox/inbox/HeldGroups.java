package dev.txinbox.inbox;

import java.util.HashMap;
import java.util.Map;

/**
 * The groups of a batch held back behind a failed message: once a message of a group fails, the group's later
 * messages in the batch are not processed but go back to the queue at once, counting nothing, so that none
 * overtakes it; they come back after it. (Across batches, the transport keeps the same rule for messages it has
 * already fetched.)
 */
final class HeldGroups {

    private final Map<String, String> behind = new HashMap<>();

    /** Holds {@code group} (null: no group, nothing to hold) behind {@code failed}, unless it is held already. */
    void hold(String group, String failed) {
        if (group != null) {
            behind.putIfAbsent(group, failed);
        }
    }

    boolean holds(String group) {
        return group != null && behind.containsKey(group);
    }

    /** The result of a message of a held group: sent back unprocessed. */
    InboxResult heldBack(String eventId, String group) {
        return InboxResult.heldBack(eventId, "held back behind " + behind.get(group));
    }
}
