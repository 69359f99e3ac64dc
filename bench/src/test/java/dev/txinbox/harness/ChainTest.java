package dev.txinbox.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The chain's downstream verdict catches each way the notifications could go wrong, and nothing else. */
class ChainTest {

    private static final Map<String, Long> RECORDED = Map.of("a1", 1L, "a2", 2L, "a3", 3L, "b1", 1L);

    private static Chain.Applied row(String event, long sequence) {
        return new Chain.Applied(event, event.substring(0, 1), sequence);
    }

    private static Chain.Tally tally(Chain.Applied... rows) {
        return Chain.tally(RECORDED, List.of(rows), new ArrayList<>());
    }

    @Test
    void everyEventOnceAndInOrderIsClean() {
        assertEquals(new Chain.Tally(0, 0, 0, 0), tally(row("a1", 1), row("b1", 1), row("a2", 2), row("a3", 3)));
    }

    @Test
    void anEventAppliedTwiceIsDoubled() {
        assertEquals(new Chain.Tally(0, 1, 0, 0),
                tally(row("a1", 1), row("a2", 2), row("b1", 1), row("a2", 2), row("a3", 3)));
    }

    @Test
    void anEventNeverAppliedIsLost() {
        assertEquals(new Chain.Tally(1, 0, 0, 0), tally(row("a1", 1), row("a2", 2), row("a3", 3)));
    }

    @Test
    void aLaterEventAppliedFirstIsOutOfOrder() {
        assertEquals(new Chain.Tally(0, 0, 1, 0), tally(row("a2", 2), row("a1", 1), row("a3", 3), row("b1", 1)));
    }

    @Test
    void aNotificationOfNoRecordedEventIsUnexpected() {
        List<String> examples = new ArrayList<>();
        Chain.Tally tally = Chain.tally(RECORDED,
                List.of(row("a1", 1), row("a2", 2), row("a3", 3), row("b1", 1), row("a9", 9), row("b1", 2)), examples);
        assertEquals(new Chain.Tally(0, 0, 0, 2), tally);
        assertEquals(2, examples.size());
    }
}
