-- The transactional outbox (docs/OUTBOX.md, CONTRACT §6). The first six columns are the names Debezium's outbox
-- event router reads by default, so the table can be published by Debezium instead of the embedded relay.
create table outbox_events (
    id              uuid primary key,
    aggregatetype   varchar(255) not null,
    -- As long as the inbox accepts one (CONTRACT §1: 512), so that no order is refused for its outbox's sake.
    aggregateid     varchar(512) not null,
    type            varchar(255) not null,
    timestamp       timestamptz  not null,
    payload         jsonb        not null,
    -- Per aggregate 1, 2, 3 … in commit order (outbox_sequences), never reused or skipped.
    sequence        bigint       not null,
    -- Hash of the aggregate id modulo txinbox.outbox.partitions: the unit a relay instance owns.
    partition       int          not null,
    -- Rejections by SQS (too large, invalid); outages count none.
    attempts        int          not null default 0,
    next_attempt_at timestamptz,
    last_error      text,
    published_at    timestamptz,
    -- An operator gave up on the event: its aggregate's successors go on without it.
    skipped_at      timestamptz,
    unique (aggregateid, sequence)
);

-- The relay's question: the pending heads of a partition, per aggregate in sequence order. Small: published rows
-- leave it.
create index outbox_events_pending on outbox_events (partition, aggregateid, sequence)
    where published_at is null and skipped_at is null;

-- Retention deletes by age, oldest first.
create index outbox_events_timestamp on outbox_events (timestamp);

-- The last sequence handed out per aggregate. A recording transaction updates its aggregates' rows at its flush
-- and holds their locks to its commit, so a later sequence always belongs to a later commit. Rows are never
-- deleted: a deleted counter would hand out its aggregate's numbers again.
create table outbox_sequences (
    aggregateid   varchar(512) primary key,
    last_sequence bigint not null
);
