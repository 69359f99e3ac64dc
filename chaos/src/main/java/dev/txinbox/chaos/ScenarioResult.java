package dev.txinbox.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.txinbox.harness.Chain;
import dev.txinbox.harness.Verifier;

/**
 * One scenario's evidence: what was sent, what the faults were, what PostgreSQL and the DLQ hold, and what the
 * consumer downstream applied of what the outbox published.
 */
record ScenarioResult(String key, String title, String stream, long messagesSent, long events, long poison,
        List<String> faults, Verifier.Verdict verdict, DeadLetters deadLetters, Chain chain,
        Map<String, Double> liveCounters,
        boolean quiescent, double seconds, double secondsToQuiescence) {

    boolean passed() {
        return quiescent && verdict.exactlyOnce() && deadLetters.complete() && chain.complete();
    }

    String summaryLine() {
        return String.format("  %s: %s — lost %d, doubled %d, unexplained %d, dead letters %d/%d with reason"
                + " (missing %d, unexpected %d); downstream %d events, %d applied, pending %d, lost %d, doubled %d,"
                + " out of order %d, unexpected %d, unexplained %d, gaps %d, events doubled %d, events missing %d;"
                + " %.0f s, quiet %.0f s after the last fault and send%s",
                key, passed() ? "PASSED" : "FAILED", verdict.lostEvents() + verdict.wrongOrders(), verdict.doubled(),
                verdict.unexplained(), deadLetters.withReason(), deadLetters.messages(), deadLetters.missingPoison(),
                deadLetters.unexpected(), chain.events(), chain.applied(), chain.pending(), chain.lost(), chain.doubled(),
                chain.outOfOrder(), chain.unexpected(), chain.unexplained(), chain.gaps(), chain.doubledEvents(),
                chain.missingEvents(), seconds, secondsToQuiescence, examples());
    }

    private String examples() {
        List<String> all = new ArrayList<>(verdict.examples());
        all.addAll(chain.examples());
        return all.isEmpty() ? "" : "\n    " + String.join("\n    ", all);
    }
}
