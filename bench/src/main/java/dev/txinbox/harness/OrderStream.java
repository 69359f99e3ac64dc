package dev.txinbox.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Generates realistic order streams and, beside them, the oracle: what PostgreSQL must hold once
 * every message has been consumed exactly once.
 * <p>
 * An order has at most four events, so a message group carries many orders (as a producer that groups
 * by customer does): the orders of one group interleave, each keeps its own sequence 1, 2, 3. With one
 * group the whole stream is one ordered lane; with a thousand, a thousand lanes run side by side.
 */
public final class OrderStream {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] CURRENCIES = { "EUR", "USD", "GBP" };

    private final List<List<Outgoing>> groups;
    private final Oracle oracle;

    private OrderStream(List<List<Outgoing>> groups, Oracle oracle) {
        this.groups = groups;
        this.oracle = oracle;
    }

    /** The messages of each group, in the order the producer sends them. */
    public List<List<Outgoing>> groups() {
        return groups;
    }

    public Oracle oracle() {
        return oracle;
    }

    public static OrderStream generate(StreamSpec spec) {
        return generate(spec, "");
    }

    /** {@code prefix} keeps the order and event ids of a warm-up stream apart from the measured one. */
    public static OrderStream generate(StreamSpec spec, String prefix) {
        Random random = new Random(spec.seed());
        Oracle oracle = new Oracle();
        List<List<Outgoing>> perGroup = new ArrayList<>();
        List<List<List<Event>>> lifecycles = new ArrayList<>();
        for (int g = 0; g < spec.groups(); g++) {
            perGroup.add(new ArrayList<>());
            lifecycles.add(new ArrayList<>());
        }
        // Lifecycles first, until the stream (with duplicates and poison) reaches the message count.
        double perEvent = 1 + spec.duplicateRate() + spec.poisonRate();
        int planned = 0;
        int orderNumber = 0;
        while (planned * perEvent < spec.messages()) {
            int group = orderNumber % spec.groups();
            List<Event> lifecycle = lifecycle(random, "ord-" + prefix + orderNumber, "g-" + group, "cust-" + group, oracle,
                    spec.payloadBytes());
            lifecycles.get(group).add(lifecycle);
            planned += lifecycle.size();
            orderNumber++;
        }
        for (int g = 0; g < spec.groups(); g++) {
            List<Event> lane = interleave(random, lifecycles.get(g));
            swapSome(random, lane, spec.outOfOrderRate(), oracle);
            List<Outgoing> out = perGroup.get(g);
            for (Event event : lane) {
                out.add(new Outgoing(event.group, event.eventId + "#1", event.body, event.eventId, Outgoing.Kind.EVENT));
                oracle.sent(Outgoing.Kind.EVENT);
            }
        }
        // Duplicates: a re-send of an event, a little later in its group, under a new deduplication id.
        int events = oracle.events();
        int duplicates = (int) Math.round(events * spec.duplicateRate());
        for (int i = 0; i < duplicates; i++) {
            List<Outgoing> lane = perGroup.get(random.nextInt(spec.groups()));
            if (lane.isEmpty()) {
                continue;
            }
            int at = random.nextInt(lane.size());
            Outgoing original = lane.get(at);
            if (original.kind() != Outgoing.Kind.EVENT) {
                continue;
            }
            int later = Math.min(lane.size(), at + 1 + random.nextInt(20));
            lane.add(later, new Outgoing(original.groupId(), original.eventId() + "#dup" + i, original.body(),
                    original.eventId(), Outgoing.Kind.DUPLICATE));
            oracle.sent(Outgoing.Kind.DUPLICATE);
        }
        int poison = (int) Math.round(events * spec.poisonRate());
        for (int i = 0; i < poison; i++) {
            int group = random.nextInt(spec.groups());
            List<Outgoing> lane = perGroup.get(group);
            Outgoing bad = poison(prefix + i, "g-" + group);
            lane.add(random.nextInt(lane.size() + 1), bad);
            oracle.poison(bad.deduplicationId());
        }
        return new OrderStream(perGroup, oracle);
    }

    private record Event(String group, String orderId, String eventId, int sequence, String body) {
    }

    private static List<Event> lifecycle(Random random, String orderId, String group, String customer, Oracle oracle,
            int padding) {
        long amount = 100 + random.nextInt(100_000);
        String currency = CURRENCIES[random.nextInt(CURRENCIES.length)];
        double shape = random.nextDouble();
        List<String> types = shape < 0.70 ? List.of("ORDER_CREATED", "ORDER_PAID", "ORDER_SHIPPED")
                : shape < 0.85 ? List.of("ORDER_CREATED", "ORDER_CANCELLED")
                : List.of("ORDER_CREATED", "ORDER_PAID", "ORDER_CANCELLED");
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) {
            String type = types.get(i);
            ObjectNode payload = JSON.createObjectNode();
            switch (type) {
                case "ORDER_CREATED" -> payload.put("customerId", customer).put("amount", amount).put("currency", currency);
                case "ORDER_PAID" -> payload.put("amount", amount).put("currency", currency);
                case "ORDER_SHIPPED" -> payload.put("carrier", "DHL").put("trackingNumber", "TRK" + orderId);
                default -> payload.put("reason", "customer changed their mind");
            }
            if (padding > 0) {
                payload.put("note", "x".repeat(padding));
            }
            String eventId = "evt-" + orderId + "-" + (i + 1);
            ObjectNode body = JSON.createObjectNode()
                    .put("eventId", eventId)
                    .put("type", type)
                    .put("aggregateId", orderId)
                    .put("sequence", i + 1)
                    .put("occurredAt", "2026-12-02T10:00:0" + i + "Z");
            body.set("payload", payload);
            events.add(new Event(group, orderId, eventId, i + 1, body.toString()));
        }
        oracle.order(orderId, types, amount, currency, events.stream().map(Event::eventId).toList());
        return events;
    }

    /** Merges the lifecycles of one group at random, keeping each order's own sequence. */
    private static List<Event> interleave(Random random, List<List<Event>> lifecycles) {
        List<Event> lane = new ArrayList<>();
        List<List<Event>> open = new ArrayList<>();
        List<Integer> next = new ArrayList<>();
        int window = 8; // orders of a customer overlap a little, as they do in real traffic
        int started = 0;
        while (started < lifecycles.size() || !open.isEmpty()) {
            while (open.size() < window && started < lifecycles.size()) {
                open.add(lifecycles.get(started++));
                next.add(0);
            }
            int pick = random.nextInt(open.size());
            int at = next.get(pick);
            lane.add(open.get(pick).get(at));
            if (at + 1 == open.get(pick).size()) {
                open.remove(pick);
                next.remove(pick);
            } else {
                next.set(pick, at + 1);
            }
        }
        return lane;
    }

    /** The producer swaps an event with the previous event of the same order now and then. */
    private static void swapSome(Random random, List<Event> lane, double rate, Oracle oracle) {
        for (int i = 0; i < lane.size(); i++) {
            Event event = lane.get(i);
            if (event.sequence() == 1 || random.nextDouble() >= rate) {
                continue;
            }
            for (int j = i - 1; j >= 0; j--) {
                if (lane.get(j).orderId().equals(event.orderId())) {
                    if (lane.get(j).sequence() == event.sequence() - 1) {
                        lane.set(i, lane.get(j));
                        lane.set(j, event);
                        oracle.swapped();
                    }
                    break;
                }
            }
        }
    }

    private static Outgoing poison(String i, String group) {
        String id = "poison-" + i;
        String body = switch (Math.floorMod(i.hashCode(), 4)) {
            case 0 -> "this is not JSON " + i;
            case 1 -> "{\"type\":\"ORDER_CREATED\",\"aggregateId\":\"poison-order-" + i + "\",\"payload\":{}}";
            case 2 -> "{\"eventId\":\"" + id + "\",\"type\":\"ORDER_TELEPORTED\",\"aggregateId\":\"poison-order-" + i
                    + "\",\"payload\":{}}";
            default -> "{\"eventId\":\"" + id + "\",\"type\":\"ORDER_CREATED\",\"aggregateId\":\"poison-order-" + i
                    + "\",\"sequence\":1,\"payload\":{\"customerId\":\"c\",\"amount\":-5,\"currency\":\"EUR\"}}";
        };
        return new Outgoing(group, id, body, null, Outgoing.Kind.POISON);
    }
}
