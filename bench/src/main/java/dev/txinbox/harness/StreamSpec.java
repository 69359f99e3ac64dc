package dev.txinbox.harness;

/**
 * What a generated order stream looks like. Rates are per event: {@code duplicateRate} re-sends an
 * event with a new deduplication id (as a producer retrying after a timeout does), {@code outOfOrderRate}
 * swaps an event with its predecessor of the same order, {@code poisonRate} adds a malformed message.
 */
public record StreamSpec(int messages, int groups, double duplicateRate, double outOfOrderRate, double poisonRate,
        int payloadBytes, long seed) {

    public StreamSpec {
        if (messages < 1 || groups < 1) {
            throw new IllegalArgumentException("messages and groups must be positive");
        }
        for (double rate : new double[] { duplicateRate, outOfOrderRate, poisonRate }) {
            if (rate < 0 || rate >= 1) {
                throw new IllegalArgumentException("rates must be in [0, 1): " + rate);
            }
        }
    }

    public StreamSpec withMessages(int count) {
        return new StreamSpec(count, groups, duplicateRate, outOfOrderRate, poisonRate, payloadBytes, seed);
    }

    public StreamSpec withGroups(int count) {
        return new StreamSpec(messages, count, duplicateRate, outOfOrderRate, poisonRate, payloadBytes, seed);
    }

    public String describe() {
        return String.format("%d messages, %d groups, %.0f%% duplicates, %.0f%% out of order, %.1f%% poison, "
                + "%d-byte payload padding, seed %d", messages, groups, duplicateRate * 100, outOfOrderRate * 100,
                poisonRate * 100, payloadBytes, seed);
    }
}
