-- Business table of the test-only "downstream" consumer (a service downstream of the orders' outbox): one row per
-- applied event, in apply order. No unique key on purpose: an event applied twice shows as two rows.
create table downstream_effects (
    id          bigserial   primary key,
    event_id    text        not null,
    order_id    text        not null,
    sequence_no bigint      not null,
    type        text        not null,
    caused_by   text        not null
);
