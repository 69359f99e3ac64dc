package dev.txinbox.orders;

import java.util.EnumSet;
import java.util.Set;

/** The order lifecycle: CREATED→PAID→SHIPPED, CREATED→CANCELLED, PAID→CANCELLED. */
public enum OrderStatus {
    CREATED,
    PAID,
    SHIPPED,
    CANCELLED;

    public boolean canBecome(OrderStatus next) {
        return allowedNext().contains(next);
    }

    private Set<OrderStatus> allowedNext() {
        return switch (this) {
            case CREATED -> EnumSet.of(PAID, CANCELLED);
            case PAID -> EnumSet.of(SHIPPED, CANCELLED);
            case SHIPPED, CANCELLED -> EnumSet.noneOf(OrderStatus.class);
        };
    }
}
