-- Tracing (docs/DESIGN.md, "Traces"). Both columns are written by the statements that already write their rows
-- (the inbox's batched claim, the outbox's batched insert): no statement more per message.

-- The W3C trace context of the delivery that last wrote the entry, so that the console can name its trace after
-- the SQS message is gone. Null for entries written untraced or before tracing existed.
alter table inbox_messages add column traceparent text;

-- The context of the transaction that recorded the event, under the name and in the form Debezium's outbox event
-- router reads (a properties text with a traceparent line): the embedded relay and Debezium both put it on the
-- published message, so that the next inbox continues the trace.
alter table outbox_events add column tracingspancontext text;
