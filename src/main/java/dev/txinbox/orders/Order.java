package dev.txinbox.orders;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

@Entity
@Table(name = "orders")
public class Order extends PanacheEntityBase {

    @Id
    public String id;

    @Column(name = "customer_id", nullable = false)
    public String customerId;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    public OrderStatus status;

    @Column(nullable = false)
    public long amount;

    @Column(nullable = false, columnDefinition = "char(3)")
    public String currency;

    @Column(name = "paid_amount")
    public Long paidAmount;

    @Column(name = "paid_at")
    public Instant paidAt;

    public String carrier;

    @Column(name = "tracking_number")
    public String trackingNumber;

    @Column(name = "shipped_at")
    public Instant shippedAt;

    @Column(name = "cancel_reason")
    public String cancelReason;

    @Column(name = "cancelled_at")
    public Instant cancelledAt;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    @Column(name = "updated_at", nullable = false)
    public Instant updatedAt;
}
