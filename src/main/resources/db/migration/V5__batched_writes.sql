-- Payment audit ids are taken from the sequence fifty at a time (PaymentAudit), so that a batch's payments
-- are inserted together at its flush instead of one by one as they are persisted. Ids stay unique: each
-- value the sequence hands out stands for a block of fifty, and no two blocks overlap.
alter sequence payment_audit_id_seq increment by 50;
