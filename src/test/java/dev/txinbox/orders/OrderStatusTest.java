package dev.txinbox.orders;

import static dev.txinbox.orders.OrderStatus.CANCELLED;
import static dev.txinbox.orders.OrderStatus.CREATED;
import static dev.txinbox.orders.OrderStatus.PAID;
import static dev.txinbox.orders.OrderStatus.SHIPPED;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The order lifecycle as a table: every status, and the only ones it may become. No Quarkus, no database. */
class OrderStatusTest {

    private static Set<OrderStatus> next(OrderStatus from) {
        Set<OrderStatus> next = EnumSet.noneOf(OrderStatus.class);
        for (OrderStatus to : OrderStatus.values()) {
            if (from.canBecome(to)) {
                next.add(to);
            }
        }
        return next;
    }

    @Test
    void aCreatedOrderIsPaidOrCancelled() {
        assertEquals(EnumSet.of(PAID, CANCELLED), next(CREATED));
    }

    @Test
    void aPaidOrderIsShippedOrCancelled() {
        assertEquals(EnumSet.of(SHIPPED, CANCELLED), next(PAID));
    }

    @Test
    void shippedAndCancelledAreFinal() {
        assertEquals(EnumSet.noneOf(OrderStatus.class), next(SHIPPED));
        assertEquals(EnumSet.noneOf(OrderStatus.class), next(CANCELLED));
    }

    @Test
    void noStatusBecomesItselfAgain() {
        for (OrderStatus status : OrderStatus.values()) {
            assertEquals(false, status.canBecome(status), status.name());
        }
    }
}
