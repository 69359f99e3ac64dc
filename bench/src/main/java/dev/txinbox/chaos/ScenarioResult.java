package dev.txinbox.chaos;

import java.util.List;
import java.util.Map;

import dev.txinbox.harness.Verifier;

/** One scenario's evidence: what was sent, what the faults were, what PostgreSQL and the DLQ hold. */
record ScenarioResult(String key, String title, String stream, long messagesSent, long events, long poison,
        List<String> faults, Verifier.Verdict verdict, DeadLetters deadLetters, Map<String, Double> liveCounters,
        boolean quiescent, double seconds, double secondsToQuiescence) {

    boolean passed() {
        return quiescent && verdict.exactlyOnce() && deadLetters.complete();
    }

    String summaryLine() {
        return String.format("  %s: %s — lost %d, doubled %d, unexplained %d, dead letters %d/%d with reason"
                + " (missing %d, unexpected %d), %.0f s, quiet %.0f s after the last fault and send%s",
                key, passed() ? "PASSED" : "FAILED", verdict.lostEvents() + verdict.wrongOrders(), verdict.doubled(),
                verdict.unexplained(), deadLetters.withReason(), deadLetters.messages(), deadLetters.missingPoison(),
                deadLetters.unexpected(), seconds, secondsToQuiescence,
                verdict.examples().isEmpty() ? "" : "\n    " + String.join("\n    ", verdict.examples()));
    }
}
