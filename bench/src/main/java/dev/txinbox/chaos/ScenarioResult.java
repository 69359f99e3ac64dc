package dev.txinbox.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.txinbox.harness.Downstream;
import dev.txinbox.harness.Verifier;

/**
 * One scenario's evidence: what was sent, what the faults were, what PostgreSQL and the DLQ hold, and what reached
 * the services downstream through the outbox.
 */
record ScenarioResult(String key, String title, String stream, long messagesSent, long events, long poison,
        List<String> faults, Verifier.Verdict verdict, DeadLetters deadLetters, Downstream downstream,
        Map<String, Double> liveCounters,
        boolean quiescent, double seconds, double secondsToQuiescence) {

    boolean passed() {
        return quiescent && verdict.exactlyOnce() && deadLetters.complete() && downstream.complete();
    }

    String summaryLine() {
        return String.format("  %s: %s — lost %d, doubled %d, unexplained %d, dead letters %d/%d with reason"
                + " (missing %d, unexpected %d); downstream %d events, %d received (%d copies), pending %d, lost %d,"
                + " out of order %d, gaps %d, doubled %d, missing %d, unexpected %d; %.0f s, quiet %.0f s after the last"
                + " fault and send%s",
                key, passed() ? "PASSED" : "FAILED", verdict.lostEvents() + verdict.wrongOrders(), verdict.doubled(),
                verdict.unexplained(), deadLetters.withReason(), deadLetters.messages(), deadLetters.missingPoison(),
                deadLetters.unexpected(), downstream.events(), downstream.received(), downstream.copies(),
                downstream.pending(), downstream.lost(), downstream.outOfOrder(), downstream.gaps(), downstream.doubled(),
                downstream.missing(), downstream.unexpected(), seconds, secondsToQuiescence, examples());
    }

    private String examples() {
        List<String> all = new ArrayList<>(verdict.examples());
        all.addAll(downstream.examples());
        return all.isEmpty() ? "" : "\n    " + String.join("\n    ", all);
    }
}
