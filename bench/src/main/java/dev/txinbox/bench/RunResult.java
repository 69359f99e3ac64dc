package dev.txinbox.bench;

/**
 * One measured run. Throughput counts every message sent (events, duplicates, poison) from the first send
 * to the last commit; CPU figures are milliseconds of CPU per message, measured from /proc.
 */
public record RunResult(String name, String consumer, int parallelism, int groups, long messages, double paceRate,
        double seconds, double throughput, double consumerCpuMs, double postgresCpuMs, double brokerCpuMs,
        double wholePathCpuMs, double producerCpuMs, double peakRssMiB, Double latencyP50Ms, Double latencyP95Ms,
        Double latencyP99Ms, Verifier.Verdict verdict, java.util.Map<String, Double> consumerThreadsCpuMs, String log) {
}
