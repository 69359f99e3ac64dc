package dev.txinbox.chaos;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import dev.txinbox.harness.Chain;
import dev.txinbox.harness.Options;
import dev.txinbox.harness.Report;

/** What one chaos/run found: its JSON and the markdown docs/RELIABILITY.md quotes. */
final class ChaosReport extends Report<ChaosSuite> {

    private final List<ScenarioResult> results;

    ChaosReport(Options<ChaosSuite> options, List<ScenarioResult> results) {
        super(options);
        this.results = results;
    }

    @Override
    protected void document(Map<String, Object> doc) {
        doc.put("mode", options.size());
        doc.put("passed", results.stream().allMatch(ScenarioResult::passed));
        doc.put("machine", Runtime.getRuntime().availableProcessors() + " cores, "
                + System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        doc.put("scenarios", results);
    }

    @Override
    protected void markdown(StringBuilder md) {
        md.append("Broker: ElasticMQ 1.7.1 standalone, messages persisted in H2; PostgreSQL local; service jar with ")
                .append("the pod's memory limit. Stream sent at ").append(options.suite().rate).append(" msg/s over ")
                .append(options.groups()).append(" groups.\n\n");
        md.append("| scenario | messages sent | events | inbox rows by status | dead letters (with reason) | lost | doubled"
                + " | unexplained | outbox events | applied downstream | downstream inbox rows by status"
                + " | downstream lost / out of order / doubled / unexplained | s | s to quiescence | verdict |\n");
        md.append("|---|--:|--:|---|--:|--:|--:|--:|--:|--:|---|---|--:|--:|---|\n");
        for (ScenarioResult r : results) {
            String statuses = r.verdict().inboxByStatus().entrySet().stream()
                    .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
            Chain d = r.chain();
            String downstreamStatuses = d.inboxByStatus().entrySet().stream()
                    .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
            md.append(String.format("| %s | %d | %d | %s | %d (%d) | %d | %d | %d | %d | %d | %s | %d / %d / %d / %d | %.0f"
                    + " | %.0f | %s |%n",
                    r.title(),
                    r.messagesSent(), r.events(), statuses, r.deadLetters().messages(), r.deadLetters().withReason(),
                    r.verdict().lostEvents() + r.verdict().wrongOrders(), r.verdict().doubled(),
                    r.verdict().unexplained(), d.events(), d.applied(), downstreamStatuses,
                    d.lost() + d.pending() + d.missingEvents(), d.outOfOrder() + d.gaps(), d.doubled() + d.doubledEvents(),
                    d.unexplained() + d.unexpected(), r.seconds(), r.secondsToQuiescence(),
                    r.passed() ? "passed" : "FAILED"));
        }
        md.append("\nFaults, as injected:\n");
        for (ScenarioResult r : results) {
            md.append("\n- **").append(r.title()).append("**");
            if (!r.liveCounters().isEmpty()) {
                md.append(" (counters of the instances alive at the end: ").append(r.liveCounters().entrySet().stream()
                        .map(e -> e.getKey().replace("txinbox_", "") + " " + Math.round(e.getValue()))
                        .collect(Collectors.joining(", "))).append(")");
            }
            md.append('\n');
            for (String f : r.faults()) {
                md.append("  - ").append(f.trim()).append('\n');
            }
            for (String e : r.verdict().examples()) {
                md.append("  - finding: ").append(e).append('\n');
            }
            for (String e : r.chain().examples()) {
                md.append("  - finding downstream: ").append(e).append('\n');
            }
        }
    }
}
