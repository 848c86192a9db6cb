-- The W3C trace context (traceparent) of the request that wrote each event, passed on
-- in the message headers by the relay (bus.OutboxTraceDDL, verbatim). Nullable: rows
-- written before, or outside a trace, carry none.
-- Every write path inserts into outbox: fail (the file rolls back whole and the version is left
-- dirty for an operator to set back, docs/migrations.md "Killed mid-migration") rather than queue
-- its writers behind a long query (docs/migrations.md, "Long migrations and locks").
SET lock_timeout = '5s';
ALTER TABLE outbox ADD COLUMN traceparent text;
