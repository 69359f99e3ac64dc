package dev.txinbox.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

class ProcTest {

    @Test
    void aCompilerThreadThatEndsBetweenTwoReadingsLeavesNoNegativeFigure() {
        // Two C1 threads at the first reading; the JVM ends one, the other compiles on for 30 ms.
        Map<String, Double> before = Map.of("CN CompilerThre/101", 400.0, "CN CompilerThre/102", 100.0,
                "txinbox-orders-N/201", 1_000.0);
        Map<String, Double> after = Map.of("CN CompilerThre/102", 130.0, "txinbox-orders-N/201", 1_500.0,
                "txinbox-orders-N/202", 250.0);

        Map<String, Double> spent = Proc.threadCpuDeltas(before, after);

        assertEquals(30.0, spent.get("CN CompilerThre"), "summed by name, it would be 130 - 500 = -370");
        assertEquals(750.0, spent.get("txinbox-orders-N"), "a thread begun since counts whole");
    }

    @Test
    void aLiveReadingKeysEachThreadByNameWithoutDigitsAndItsId() {
        Map<String, Double> own = Proc.threadCpuMillis(ProcessHandle.current().pid());
        assertFalse(own.isEmpty());
        assertTrue(own.keySet().stream().allMatch(k -> k.matches("[^0-9]*/[0-9]+")), own.keySet().toString());
    }
}
