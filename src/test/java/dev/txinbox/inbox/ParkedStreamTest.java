package dev.txinbox.inbox;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Which sequences a stream with parked events waits for, as the console shows them. */
class ParkedStreamTest {

    private static List<String> missing(long last, Long... parked) {
        return new InboxReadModel.ParkedStream("orders", "ord_1", last, List.of(parked), Instant.EPOCH).missing().stream()
                .map(r -> r[0] + ".." + r[1]).toList();
    }

    @Test
    void theMissingSequencesAreTheHolesBeforeAndBetweenTheParkedOnes() {
        assertEquals(List.of("2..2"), missing(1, 3L, 4L));
        assertEquals(List.of("1..4", "6..8"), missing(0, 5L, 9L));
        assertEquals(List.of("3..3"), missing(2, 4L, 4L, 5L), "a sequence parked twice is one");
        // A parked event the stream has moved past (it will turn stale) leaves no hole.
        assertEquals(List.of("8..8"), missing(7, 6L, 9L));
    }
}
