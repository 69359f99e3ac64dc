-- For the batch scenarios: a unique reference (a handler's own constraint violation) and shared
-- counters that handlers lock in the order of their batch (a deadlock between two instances).
create table ledger_refs (
    ref       text primary key,
    event_id  text not null
);

create table ledger_counters (
    key  text   primary key,
    n    bigint not null
);
