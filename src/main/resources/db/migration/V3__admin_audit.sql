-- Every state-changing admin call: what, on which entry, when, by which outcome.
create table admin_audit (
    id           bigserial   primary key,
    at           timestamptz not null default now(),
    action       text        not null,
    consumer     text,
    target       text,
    outcome      text        not null,
    detail       text
);
create index admin_audit_at_ix on admin_audit (at);
