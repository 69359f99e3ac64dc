-- Failed attempts: when the next one is due, and the history of each (what failed, when).
alter table inbox_messages add column next_attempt_at timestamptz;

create table inbox_attempts (
    id                 bigserial   primary key,
    consumer_name      text        not null,
    message_id         text        not null,
    attempt            integer     not null,
    failed_at          timestamptz not null default now(),
    error_text         text        not null,
    source_message_id  text,
    receive_count      integer
);
create index inbox_attempts_entry_ix on inbox_attempts (consumer_name, message_id, attempt);
