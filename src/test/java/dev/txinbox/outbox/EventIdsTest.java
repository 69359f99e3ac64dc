package dev.txinbox.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.Test;

/** The outbox's event ids: UUIDs of version 7, ordered by the millisecond they were made in. No database. */
class EventIdsTest {

    @Test
    void anIdIsAVersion7UuidThatCarriesItsMillisecond() {
        long at = 1_764_892_800_123L;
        UUID id = EventIds.of(at, UUID.randomUUID());
        assertEquals(7, id.version());
        assertEquals(2, id.variant());
        assertEquals(at, id.getMostSignificantBits() >>> 16);
        // What PostgreSQL orders a uuid column by: its text, byte by byte.
        assertTrue(id.toString().startsWith(String.format("%08x-%04x-7", at >>> 16, at & 0xFFFF)), id.toString());
    }

    @Test
    void idsOfALaterMillisecondSortAfterAnyOfAnEarlierOne() {
        long at = 1_764_892_800_123L;
        for (int i = 0; i < 1000; i++) {
            String earlier = EventIds.of(at, UUID.randomUUID()).toString();
            String later = EventIds.of(at + 1, UUID.randomUUID()).toString();
            assertTrue(earlier.compareTo(later) < 0, earlier + " sorts after " + later);
        }
    }

    @Test
    void idsMadeInTheSameMillisecondStillDiffer() {
        Set<UUID> ids = new HashSet<>();
        long at = System.currentTimeMillis();
        for (int i = 0; i < 100_000; i++) {
            assertTrue(ids.add(EventIds.of(at, UUID.randomUUID())));
        }
    }
}
