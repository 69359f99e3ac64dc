package dev.txinbox.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import dev.txinbox.harness.Options;

class ChaosSuiteTest {

    /** --scenarios is checked against this list, so it must name exactly the scenarios there are. */
    @Test
    void theScenarioKeysAreTheOnesTheOptionTakes() {
        Options<ChaosSuite> options = Options.parse(new ChaosSuite(), "--elasticmq-classpath=x");
        assertEquals(ChaosSuite.SCENARIOS, Chaos.Scenario.all(options).stream().map(Chaos.Scenario::key).toList());
    }
}
