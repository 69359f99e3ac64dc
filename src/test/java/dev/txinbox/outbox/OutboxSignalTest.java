package dev.txinbox.outbox;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** Other pods are told of a commit unless this pod's relays own every partition it wrote; a ring reaches owners. */
class OutboxSignalTest {

    @Test
    void aCommitToPartitionsOwnedHereTellsNoOtherPod() {
        OutboxSignal signal = new OutboxSignal();
        signal.register(new Wakeup(), () -> Set.of(0, 1, 2));
        signal.register(new Wakeup(), () -> Set.of(3));
        assertFalse(signal.othersMayOwn(List.of(0, 3, 3)));
        assertTrue(signal.othersMayOwn(List.of(0, 4)));
    }

    @Test
    void withoutARelayHereEveryCommitTellsTheOthers() {
        assertTrue(new OutboxSignal().othersMayOwn(List.of(0)));
    }

    @Test
    void aNotificationRingsOnlyTheRelaysOwningAPartitionItNames() throws InterruptedException {
        OutboxSignal signal = new OutboxSignal();
        Wakeup owner = new Wakeup();
        Wakeup other = new Wakeup();
        signal.register(owner, () -> Set.of(5));
        signal.register(other, () -> Set.of(6));
        signal.wake(List.of(5, 9));
        assertTrue(owner.await(Duration.ZERO));
        assertFalse(other.await(Duration.ZERO));
    }
}
