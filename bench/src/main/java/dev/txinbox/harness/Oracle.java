package dev.txinbox.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * The expected outcome of a generated stream, consumed exactly once: every order in its final state,
 * one payment audit row per paid order, every event recorded once, every poison message dead-lettered.
 */
public final class Oracle {

    /** The final state of one order. */
    public record ExpectedOrder(String status, long amount, String currency, Long paidAmount, int auditRows) {
    }

    private final Map<String, ExpectedOrder> orders = new LinkedHashMap<>();
    private final List<String> eventIds = new ArrayList<>();
    private final List<String> poisonIds = new ArrayList<>();
    private int eventMessages;
    private int duplicateMessages;
    private int swapped;

    void order(String orderId, List<String> types, long amount, String currency, List<String> events) {
        String last = types.get(types.size() - 1);
        boolean paid = types.contains("ORDER_PAID");
        String status = switch (last) {
            case "ORDER_SHIPPED" -> "SHIPPED";
            case "ORDER_CANCELLED" -> "CANCELLED";
            case "ORDER_PAID" -> "PAID";
            default -> "CREATED";
        };
        orders.put(orderId, new ExpectedOrder(status, amount, currency, paid ? amount : null, paid ? 1 : 0));
        eventIds.addAll(events);
    }

    void sent(Outgoing.Kind kind) {
        if (kind == Outgoing.Kind.EVENT) {
            eventMessages++;
        } else if (kind == Outgoing.Kind.DUPLICATE) {
            duplicateMessages++;
        }
    }

    void poison(String id) {
        poisonIds.add(id);
    }

    void swapped() {
        swapped++;
    }

    public Map<String, ExpectedOrder> orders() {
        return orders;
    }

    public List<String> eventIds() {
        return eventIds;
    }

    public int events() {
        return eventIds.size();
    }

    public int poisonMessages() {
        return poisonIds.size();
    }

    public int duplicateMessages() {
        return duplicateMessages;
    }

    public int swappedEvents() {
        return swapped;
    }

    public int messages() {
        return eventMessages + duplicateMessages + poisonIds.size();
    }

    public long paidOrders() {
        return orders.values().stream().filter(o -> o.auditRows() > 0).count();
    }

    /** Writes the oracle beside the results, so that a run can be checked again by hand. */
    public void write(Path file) throws IOException {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("messages", messages());
        doc.put("events", events());
        doc.put("duplicates", duplicateMessages);
        doc.put("poison", poisonIds.size());
        doc.put("swapped", swapped);
        doc.put("orders", orders);
        doc.put("poisonDeduplicationIds", poisonIds);
        Files.createDirectories(file.toAbsolutePath().getParent());
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), doc);
    }
}
