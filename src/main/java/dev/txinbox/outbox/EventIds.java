package dev.txinbox.outbox;

import java.time.Instant;
import java.util.UUID;

/**
 * Ids of recorded events: time-ordered UUIDs (version 7, RFC 9562), the milliseconds of recording in the first 48
 * bits and 74 random bits after them. The primary key of {@code outbox_events} then grows at its right edge, as
 * the table does, where a random (version 4) id put every insert, and every published mark's new index entry, on a
 * page of its own somewhere in the whole index. The id is also the published message's {@code eventId}: the
 * downstream inbox's key grows the same way.
 */
final class EventIds {

    private EventIds() {
    }

    /** An id carrying the millisecond of {@code recordedAt}, the event's {@code timestamp}. */
    static UUID next(Instant recordedAt) {
        return of(recordedAt.toEpochMilli(), UUID.randomUUID());
    }

    /** {@code random}'s bits under the version and variant, after {@code epochMillis}. */
    static UUID of(long epochMillis, UUID random) {
        long high = (epochMillis << 16) | 0x7000L | (random.getMostSignificantBits() & 0x0FFFL);
        long low = (random.getLeastSignificantBits() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(high, low);
    }
}
