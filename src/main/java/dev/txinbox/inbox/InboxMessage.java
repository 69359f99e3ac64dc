package dev.txinbox.inbox;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** One row of {@code inbox_messages}: the recorded identity and fate of one event for one consumer. */
@Entity
@Table(name = "inbox_messages")
public class InboxMessage extends PanacheEntityBase {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(name = "consumer_name", nullable = false)
    public String consumerName;

    @Column(name = "message_id", nullable = false)
    public String messageId;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    public InboxStatus status;

    @Column(name = "event_type")
    public String eventType;

    @Column(name = "aggregate_id")
    public String aggregateId;

    @Column(name = "sequence_number")
    public Long sequenceNumber;

    @Column(name = "payload_hash", nullable = false)
    public String payloadHash;

    @Column(nullable = false)
    public String body;

    @Column(name = "attempt_count", nullable = false)
    public int attemptCount;

    @Column(name = "error_text")
    public String errorText;

    @Column(name = "received_at", nullable = false)
    public Instant receivedAt;

    @Column(name = "processed_at")
    public Instant processedAt;

    @Column(name = "next_attempt_at")
    public Instant nextAttemptAt;

    @Column(name = "source_queue")
    public String sourceQueue;

    @Column(name = "source_message_id")
    public String sourceMessageId;

    @Column(name = "source_group_id")
    public String sourceGroupId;

    @Column(name = "source_sent_at")
    public Instant sourceSentAt;

    @Column(name = "receive_count")
    public Integer receiveCount;

    /** The W3C trace context of the delivery that last wrote the entry, if it was traced. */
    @Column(name = "traceparent")
    public String traceparent;
}
