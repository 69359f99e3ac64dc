package dev.txinbox.outbox;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import dev.txinbox.outbox.OutboxPublisher.Message;

/** One {@code SendMessageBatch}: heads of distinct aggregates, with their bodies. */
record Call(List<Head> heads, List<String> bodies) {

    /** SQS's limit of entries per {@code SendMessageBatch}. */
    static final int MAX_ENTRIES = 10;

    /** A head whose body alone is larger than the broker takes: no call can carry it. */
    record Oversized(Head head, int bytes) {

        String reason(int maxBytes) {
            return "message of " + bytes + " bytes exceeds the limit of " + maxBytes + " bytes";
        }
    }

    /** A page of heads cut into calls, in the page's order, and the heads that fit none. */
    record Plan(List<Call> calls, List<Oversized> oversized) {
    }

    /**
     * Cuts {@code heads} into calls of at most {@link #MAX_ENTRIES} entries and {@code maxBytes} of bodies, as SQS
     * takes them; a head larger than {@code maxBytes} by itself goes into {@link Plan#oversized()} instead.
     */
    static Plan plan(List<Head> heads, List<String> bodies, int maxBytes) {
        List<Call> calls = new ArrayList<>();
        List<Oversized> oversized = new ArrayList<>();
        List<Head> batch = new ArrayList<>();
        List<String> batchBodies = new ArrayList<>();
        int bytes = 0;
        for (int i = 0; i < heads.size(); i++) {
            String body = bodies.get(i);
            int size = body.getBytes(StandardCharsets.UTF_8).length;
            if (size > maxBytes) {
                oversized.add(new Oversized(heads.get(i), size));
                continue;
            }
            if (!batch.isEmpty() && (batch.size() == MAX_ENTRIES || bytes + size > maxBytes)) {
                calls.add(new Call(List.copyOf(batch), List.copyOf(batchBodies)));
                batch.clear();
                batchBodies.clear();
                bytes = 0;
            }
            batch.add(heads.get(i));
            batchBodies.add(body);
            bytes += size;
        }
        if (!batch.isEmpty()) {
            calls.add(new Call(List.copyOf(batch), List.copyOf(batchBodies)));
        }
        return new Plan(List.copyOf(calls), List.copyOf(oversized));
    }

    /** The call's entries, each named by its index, which is how the broker's answer names it. */
    List<Message> messages() {
        List<Message> messages = new ArrayList<>(heads.size());
        for (int i = 0; i < heads.size(); i++) {
            messages.add(OutboxFormat.message(Integer.toString(i), heads.get(i), bodies.get(i)));
        }
        return messages;
    }

    /** Each entry as a call of its own. */
    List<Call> alone() {
        List<Call> alone = new ArrayList<>(heads.size());
        for (int i = 0; i < heads.size(); i++) {
            alone.add(new Call(List.of(heads.get(i)), List.of(bodies.get(i))));
        }
        return alone;
    }
}
