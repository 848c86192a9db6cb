-- The W3C trace context (traceparent) of the request whose event made an event's
-- deliveries, kept with their body so that every later attempt (a retry claimed by
-- any replica, an operator's retry) continues that trace. Nullable: bodies written
-- before, or for events outside a trace, carry none. A new nullable column without
-- a default changes no row.
SET lock_timeout = '5s';
ALTER TABLE delivery_bodies ADD COLUMN traceparent text;
