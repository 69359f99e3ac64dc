package dev.txinbox.harness;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The service's own counters, read from its Prometheus text (/q/metrics): how many messages reached an
 * outcome, and the SQS requests it made by call. A backlog run polls these to find its window, since
 * counting inbox rows would bill PostgreSQL for the harness's curiosity.
 *
 * @param done messages that reached a final outcome ({@code txinbox_messages_total}, all outcomes but
 *        {@code retried}, which a message passes through before its final one)
 * @param requests {@code txinbox_sqs_requests_total} by call (receives, which the connector makes
 *        through txinbox's client, and delete batches)
 * @param requestMessages {@code txinbox_sqs_request_messages_total} by call: messages those requests carried
 * @param published {@code txinbox_outbox_published_total}: outbox events the relay published
 * @param sends {@code txinbox_outbox_batch_size_count}: the relay's {@code SendMessageBatch} calls that published
 *        something
 */
public record ServiceCounters(long done, Map<String, Long> requests, Map<String, Long> requestMessages,
        long published, long sends) {

    private static final Pattern LINE = Pattern.compile("^(txinbox_[a-z_]+)(?:\\{([^}]*)\\})?\\s+(\\S+)");
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    public static ServiceCounters parse(String prometheusText) {
        long done = 0;
        long published = 0;
        long sends = 0;
        Map<String, Long> requests = new TreeMap<>();
        Map<String, Long> requestMessages = new TreeMap<>();
        for (String line : prometheusText.split("\n")) {
            Matcher m = LINE.matcher(line);
            if (!m.find()) {
                continue;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            Matcher l = LABEL.matcher(m.group(2) == null ? "" : m.group(2));
            while (l.find()) {
                labels.put(l.group(1), l.group(2));
            }
            long value = Math.round(Double.parseDouble(m.group(3)));
            switch (m.group(1)) {
                case "txinbox_messages_total" -> {
                    if (!"retried".equals(labels.get("outcome"))) {
                        done += value;
                    }
                }
                case "txinbox_outbox_published_total" -> published += value;
                case "txinbox_outbox_batch_size_count" -> sends += value;
                case "txinbox_sqs_requests_total" -> requests.merge(labels.getOrDefault("call", "?"), value, Long::sum);
                case "txinbox_sqs_request_messages_total" ->
                    requestMessages.merge(labels.getOrDefault("call", "?"), value, Long::sum);
                default -> {
                }
            }
        }
        return new ServiceCounters(done, requests, requestMessages, published, sends);
    }

    public long totalRequests() {
        return requests.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Per call, from {@code before} to this: requests, requests per message (of {@code messages}) and
     * messages per request (how full the batches were).
     */
    public Map<String, Map<String, Double>> perCallSince(ServiceCounters before, long messages) {
        Map<String, Map<String, Double>> calls = new TreeMap<>();
        requests.forEach((call, count) -> calls.put(call, figures(count - before.requests.getOrDefault(call, 0L),
                requestMessages.getOrDefault(call, 0L) - before.requestMessages.getOrDefault(call, 0L), messages)));
        return calls;
    }

    /**
     * The relay's {@code SendMessageBatch} calls from {@code before} to this, as {@link #perCallSince} gives a call
     * (the events they published as its messages), and the events published per message consumed.
     */
    public Map<String, Double> relaySendsSince(ServiceCounters before, long messages) {
        long events = published - before.published;
        Map<String, Double> figures = figures(sends - before.sends, events, messages);
        figures.put("eventsPerMessage", round((double) events / Math.max(1, messages)));
        return figures;
    }

    private static Map<String, Double> figures(long made, long carried, long messages) {
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("requests", (double) made);
        figures.put("perMessage", round((double) made / Math.max(1, messages)));
        figures.put("messagesPerRequest", made == 0 ? 0 : round((double) carried / made));
        return figures;
    }

    private static double round(double value) {
        return Math.round(value * 10000) / 10000.0;
    }
}
