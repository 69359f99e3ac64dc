-- Fewer index entries per outbox event (docs/BENCHMARKS.md, issue 35). An event pays an entry in every B-tree of
-- outbox_events when it is recorded, and again when the relay marks it published: that update is never HOT, as the
-- pending index's predicate changes.
--
-- One event per aggregate and sequence is now checked among the pending events only, by the index the relay reads
-- anyway: that is where a second event with one sequence could be published. The table-wide constraint took an
-- entry per event and per mark, under random keys, and covered no more than the retention window either. The
-- counters in outbox_sequences, locked to the commit, are what hand each sequence out once.
--
-- The retention's B-tree on timestamp stays: a BRIN index would cost less per event, but once vacuum lets new rows
-- into the space of deleted ones its ranges only widen, until the retention reads the whole table on every run.
alter table outbox_events drop constraint outbox_events_aggregateid_sequence_key;
drop index outbox_events_pending;
create unique index outbox_events_pending on outbox_events (partition, aggregateid, sequence)
    where published_at is null and skipped_at is null;
