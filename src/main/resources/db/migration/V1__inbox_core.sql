-- The inbox: one row per (consumer, eventId). The unique constraint is what makes a redelivery
-- or a re-send harmless: the claim is an INSERT that can only succeed once.
create table inbox_messages (
    id                 bigserial    primary key,
    consumer_name      text         not null,
    message_id         text         not null,
    status             text         not null,
    event_type         text,
    aggregate_id       text,
    sequence_number    bigint,
    payload_hash       text         not null,
    body               text         not null,
    attempt_count      integer      not null default 1,
    error_text         text,
    received_at        timestamptz  not null default now(),
    processed_at       timestamptz,
    source_queue       text,
    source_message_id  text,
    source_group_id    text,
    source_sent_at     timestamptz,
    receive_count      integer,
    constraint inbox_messages_consumer_message_uq unique (consumer_name, message_id),
    constraint inbox_messages_status_ck
        check (status in ('PROCESSED', 'STALE', 'PARKED', 'REJECTED', 'FAILED', 'DEAD')),
    constraint inbox_messages_sequence_ck check (sequence_number is null or sequence_number > 0)
);

-- Draining a gap: "the parked event right after the last applied one" for one stream.
create index inbox_messages_parked_ix
    on inbox_messages (consumer_name, aggregate_id, sequence_number)
    where status = 'PARKED';

-- Lag and health: the oldest unfinished entries.
create index inbox_messages_pending_ix
    on inbox_messages (consumer_name, received_at)
    where status in ('PARKED', 'FAILED');

-- Retention deletes finished rows by age, status by status.
create index inbox_messages_retention_ix on inbox_messages (status, processed_at);

-- Per-aggregate ordering: the last sequence applied (or otherwise consumed) per stream.
-- Its row lock serialises the events of one aggregate across pollers and pods.
create table stream_state (
    consumer_name   text        not null,
    aggregate_id    text        not null,
    last_sequence   bigint      not null default 0,
    updated_at      timestamptz not null default now(),
    primary key (consumer_name, aggregate_id)
);

-- The shipped domain.
create table orders (
    id               text        primary key,
    customer_id      text        not null,
    status           text        not null,
    amount           bigint      not null,
    currency         char(3)     not null,
    paid_amount      bigint,
    paid_at          timestamptz,
    carrier          text,
    tracking_number  text,
    shipped_at       timestamptz,
    cancel_reason    text,
    cancelled_at     timestamptz,
    created_at       timestamptz not null,
    updated_at       timestamptz not null,
    constraint orders_status_ck check (status in ('CREATED', 'PAID', 'SHIPPED', 'CANCELLED')),
    constraint orders_amount_ck check (amount > 0),
    constraint orders_paid_amount_ck check (paid_amount is null or paid_amount > 0)
);

create table payment_audit (
    id          bigserial   primary key,
    order_id    text        not null references orders (id),
    message_id  text        not null,
    amount      bigint      not null,
    currency    char(3)     not null,
    payload     text        not null,
    created_at  timestamptz not null default now(),
    -- A second line of defence behind the inbox: one audit row per payment event, ever.
    constraint payment_audit_message_uq unique (message_id)
);
create index payment_audit_order_ix on payment_audit (order_id);
