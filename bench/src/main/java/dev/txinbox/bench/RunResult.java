package dev.txinbox.bench;

import java.util.Map;

import dev.txinbox.harness.PgStatements;
import dev.txinbox.harness.StageTimes;
import dev.txinbox.harness.Verifier;

/**
 * One measured run. {@code messages} is the stream (events, duplicates, poison); {@code warmUpMessages} the
 * warm-up of other orders that went through the consumer first, outside the window; {@code measuredMessages}
 * those inside the measured window: all of the stream in the concurrent mode (first send to last commit), in
 * the backlog mode those done from the moment the warm-up's count was done to the moment the stream's was
 * too. Throughput and the CPU figures (milliseconds of CPU per message, from /proc) are over that window;
 * {@code jitCpuMs} is the share of the consumer's that its JIT compiler threads used (small once it is warm);
 * {@code pgStatementsPerMessage} the statements PostgreSQL executed for the consumer (transaction control and
 * savepoints included; {@code pgStatements} has the costliest), null for the drain ceiling, which has no
 * database; {@code sqsRequestsPerMessage} is the consumer's SQS calls (not the producer's) per message in
 * it, {@code sqsCalls} the service's by call; {@code stages} (txinbox in the concurrent mode) where a message's
 * time went inside the service, stage by stage, over the window. {@code relayThreadsCpuMs} (relay runs only) is the
 * CPU of the relay's own threads per event ({@link Bench#RELAY_THREADS}): its rounds, the events' reading, marking
 * and shaping and the SQS client's calls as made on them, without the JIT, the GC and the SQS client's network I/O,
 * which run on threads the service shares ({@code consumerThreadsCpuMs} has those by name). {@code consumerCpuGroupsMs}
 * is the consumer's CPU per message split into {@link Bench#CPU_GROUPS} (workers, event loop, relay, JIT, GC and the
 * VM thread, other), in every mode. {@code postgresDatabaseCpuMs} is the CPU of the consumer's database's own backends
 * per message (those alive as the window closes), beside {@code postgresCpuMs}, the whole server's: on a machine where
 * others use the same PostgreSQL the first is the consumer's, the second is not (null: no database).
 */
public record RunResult(String name, String consumer, String mode, int parallelism, int groups, long messages,
        long warmUpMessages, long oldRows, long measuredMessages, double paceRate, double seconds, double throughput,
        double consumerCpuMs, double postgresCpuMs, Double pgStatementsPerMessage, double brokerCpuMs,
        double wholePathCpuMs, double producerCpuMs, Double sqsRequestsPerMessage,
        Map<String, Map<String, Double>> sqsCalls, double peakRssMiB, Double latencyP50Ms, Double latencyP95Ms,
        Double latencyP99Ms, Verifier.Verdict verdict, Double jitCpuMs, Map<String, Double> consumerThreadsCpuMs,
        PgStatements.Count pgStatements, Map<String, StageTimes.Stage> stages, OldRows.Load oldRowsLoad, String log,
        Double relayThreadsCpuMs, Map<String, Double> consumerCpuGroupsMs, Double postgresDatabaseCpuMs) {
}
