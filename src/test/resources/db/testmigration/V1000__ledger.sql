-- Business table of the test-only "ledger" consumer: one row per applied event, in apply order.
create table ledger_entries (
    id           bigserial   primary key,
    event_id     text        not null,
    group_key    text,
    sequence_no  bigint,
    applied_at   timestamptz not null default clock_timestamp(),
    finished_at  timestamptz
);
