package dev.txinbox.inbox;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** One failed attempt at an event (written by {@link InboxFailures#recordFailure}). */
@Entity
@Table(name = "inbox_attempts")
public class InboxAttempt extends PanacheEntityBase {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(name = "consumer_name", nullable = false)
    public String consumerName;

    @Column(name = "message_id", nullable = false)
    public String messageId;

    @Column(nullable = false)
    public int attempt;

    @Column(name = "failed_at", nullable = false)
    public Instant failedAt;

    @Column(name = "error_text", nullable = false)
    public String errorText;

    @Column(name = "source_message_id")
    public String sourceMessageId;

    @Column(name = "receive_count")
    public Integer receiveCount;
}
