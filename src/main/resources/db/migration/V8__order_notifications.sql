-- The notifications consumer's business table (dev.txinbox.notifications): one row per order event it applied, in
-- the order it applied them. No unique key on the event on purpose: the inbox keeps an event from applying twice,
-- and an event applied twice would show here as two rows instead of failing.
create table order_notifications (
    id          bigserial   primary key,
    event_id    text        not null,
    order_id    text        not null,
    sequence_no bigint      not null,
    type        text        not null,
    caused_by   text        not null,
    created_at  timestamptz not null default now()
);
create index order_notifications_order on order_notifications (order_id, id);
