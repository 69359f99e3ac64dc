package dev.txinbox.orders;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/**
 * One row per applied ORDER_PAID event. Its id comes from the table's sequence fifty at a time (V5 sets the
 * sequence's step to match), not from the insert: an identity would force one insert per payment as soon as
 * it is persisted, where a batch's payments should go to the database together, at its one flush.
 */
@Entity
@Table(name = "payment_audit")
public class PaymentAudit extends PanacheEntityBase {

    @Id
    @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "payment_audit_ids")
    @SequenceGenerator(name = "payment_audit_ids", sequenceName = "payment_audit_id_seq", allocationSize = 50)
    public Long id;

    @ManyToOne(fetch = FetchType.LAZY, optional = false)
    @JoinColumn(name = "order_id")
    public Order order;

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
