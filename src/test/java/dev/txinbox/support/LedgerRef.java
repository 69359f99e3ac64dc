package dev.txinbox.support;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * A row of the ledger consumer's {@code ledger_refs}, written as an entity (payload {@code entityRef}): its insert
 * waits for a flush, so a second one with the same ref fails there, not in the handler that persisted it.
 */
@Entity
@Table(name = "ledger_refs")
public class LedgerRef {

    @Id
    public String ref;

    @Column(name = "event_id", nullable = false)
    public String eventId;
}
