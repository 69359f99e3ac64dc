-- Fewer index entries per outbox event (docs/BENCHMARKS.md, issue 35). An event pays an entry in every B-tree of
-- outbox_events when it is recorded, and again when the relay marks it published: that update is never HOT, as the
-- pending index's predicate changes. Two of those B-trees did little for their entries.

-- Retention deletes by recording time. Rows are written in that order, so a BRIN index finds the old ones from a
-- few pages of summaries, where a B-tree took an entry per event and per mark.
drop index outbox_events_timestamp;
create index outbox_events_timestamp on outbox_events using brin (timestamp);

-- One event per aggregate and sequence, now checked among the pending events only, by the index the relay reads
-- anyway: that is where a second event with one sequence could be published. The table-wide constraint took an
-- entry per event and per mark, with random keys, and covered no more than the retention window either. The
-- counters in outbox_sequences, locked to the commit, are what hand each sequence out once.
alter table outbox_events drop constraint outbox_events_aggregateid_sequence_key;
drop index outbox_events_pending;
create unique index outbox_events_pending on outbox_events (partition, aggregateid, sequence)
    where published_at is null and skipped_at is null;
