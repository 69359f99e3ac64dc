package dev.txinbox.orders;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** One row per applied ORDER_PAID event. */
@Entity
@Table(name = "payment_audit")
public class PaymentAudit extends PanacheEntityBase {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(name = "order_id", nullable = false)
    public String orderId;

    @Column(name = "message_id", nullable = false)
    public String messageId;

    @Column(nullable = false)
    public long amount;

    @Column(nullable = false, columnDefinition = "char(3)")
    public String currency;

    @Column(nullable = false)
    public String payload;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;
}
