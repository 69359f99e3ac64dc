package dev.txinbox.harness;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a message's time went inside the service: the histograms of {@code txinbox_stage_seconds{stage}} (one
 * record per message and stage) read from /q/metrics at two moments, and the quantiles of what was recorded in
 * between, stage by stage. A quantile is the upper bound of the bucket it falls in (Micrometer's buckets are
 * about 10 % apart), so it is never flattering. The outbox's {@code txinbox_outbox_send_latency_seconds} (from an
 * event's recording in a handler to the relay's send of it, one record per event) is read the same way, as the
 * stage {@value #OUTBOX}.
 */
public final class StageTimes {

    private static final Pattern BUCKET = Pattern.compile(
            "^txinbox_stage_seconds_bucket\\{(?=[^}]*stage=\"([^\"]+)\")[^}]*le=\"([^\"]+)\"[^}]*\\}\\s+(\\S+)");
    private static final Pattern SUM = Pattern.compile(
            "^txinbox_stage_seconds_(sum|count)\\{(?=[^}]*stage=\"([^\"]+)\")[^}]*\\}\\s+(\\S+)");
    private static final Pattern OUTBOX_BUCKET = Pattern.compile(
            "^txinbox_outbox_send_latency_seconds_bucket\\{[^}]*le=\"([^\"]+)\"[^}]*\\}\\s+(\\S+)");
    private static final Pattern OUTBOX_SUM = Pattern.compile(
            "^txinbox_outbox_send_latency_seconds_(sum|count)(?:\\{[^}]*\\})?\\s+(\\S+)");

    /** The outbox's pseudo-stage: an event recorded until the relay sent it. */
    public static final String OUTBOX = "outbox_record_to_send";

    /** One stage between the two readings: messages recorded, mean and quantiles in milliseconds. */
    public record Stage(long messages, double meanMs, double p50Ms, double p95Ms, double p99Ms, double maxBucketMs) {
    }

    /** stage -> upper bound in seconds -> cumulative count */
    private final Map<String, TreeMap<Double, Double>> buckets = new TreeMap<>();
    private final Map<String, double[]> sums = new TreeMap<>();

    private StageTimes() {
    }

    public static StageTimes parse(String prometheusText) {
        StageTimes times = new StageTimes();
        for (String line : prometheusText.split("\n")) {
            Matcher b = BUCKET.matcher(line);
            if (b.find()) {
                double le = b.group(2).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(b.group(2));
                times.buckets.computeIfAbsent(b.group(1), s -> new TreeMap<>()).merge(le, Double.parseDouble(b.group(3)),
                        Double::sum);
                continue;
            }
            Matcher s = SUM.matcher(line);
            if (s.find()) {
                double[] sumCount = times.sums.computeIfAbsent(s.group(2), x -> new double[2]);
                sumCount[s.group(1).equals("sum") ? 0 : 1] += Double.parseDouble(s.group(3));
            }
            Matcher ob = OUTBOX_BUCKET.matcher(line);
            if (ob.find()) {
                double le = ob.group(1).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(ob.group(1));
                times.buckets.computeIfAbsent(OUTBOX, x -> new TreeMap<>()).merge(le, Double.parseDouble(ob.group(2)),
                        Double::sum);
                continue;
            }
            Matcher os = OUTBOX_SUM.matcher(line);
            if (os.find()) {
                double[] sumCount = times.sums.computeIfAbsent(OUTBOX, x -> new double[2]);
                sumCount[os.group(1).equals("sum") ? 0 : 1] += Double.parseDouble(os.group(2));
            }
        }
        return times;
    }

    /** What was recorded from {@code before} to this reading, stage by stage (stages with nothing left out). */
    public Map<String, Stage> since(StageTimes before) {
        Map<String, Stage> stages = new LinkedHashMap<>();
        buckets.forEach((stage, cumulative) -> {
            TreeMap<Double, Double> earlier = before.buckets.getOrDefault(stage, new TreeMap<>());
            TreeMap<Double, Double> delta = new TreeMap<>();
            cumulative.forEach((le, count) -> delta.put(le, count - earlier.getOrDefault(le, 0.0)));
            double total = delta.isEmpty() ? 0 : delta.lastEntry().getValue();
            if (total <= 0) {
                return;
            }
            double[] now = sums.getOrDefault(stage, new double[2]);
            double[] then = before.sums.getOrDefault(stage, new double[2]);
            double mean = (now[0] - then[0]) / Math.max(1, now[1] - then[1]) * 1000;
            double highest = delta.entrySet().stream().filter(e -> e.getValue() > 0 && !e.getKey().isInfinite())
                    .mapToDouble(Map.Entry::getKey).min().orElse(0);
            for (Map.Entry<Double, Double> e : delta.entrySet()) {
                if (e.getValue() >= total && !e.getKey().isInfinite()) {
                    highest = e.getKey();
                    break;
                }
            }
            stages.put(stage, new Stage((long) total, round(mean), quantile(delta, total, 0.50),
                    quantile(delta, total, 0.95), quantile(delta, total, 0.99), round(highest * 1000)));
        });
        return stages;
    }

    private static double quantile(TreeMap<Double, Double> cumulative, double total, double q) {
        for (Map.Entry<Double, Double> e : cumulative.entrySet()) {
            if (e.getValue() >= q * total) {
                return e.getKey().isInfinite() ? Double.POSITIVE_INFINITY : round(e.getKey() * 1000);
            }
        }
        return Double.NaN;
    }

    private static double round(double value) {
        return Math.round(value * 100) / 100.0;
    }
}
