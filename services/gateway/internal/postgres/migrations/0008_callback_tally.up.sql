-- The callbacks service's tally of a transaction's deliveries, kept from its
-- CallbackDeliveryChanged events: delivered/total, and the tally's version so
-- that an older event never overwrites a newer one.
ALTER TABLE transactions DROP COLUMN IF EXISTS callback_delivery_status;
ALTER TABLE transactions ADD COLUMN callbacks_delivered integer NOT NULL DEFAULT 0;
ALTER TABLE transactions ADD COLUMN callbacks_total integer NOT NULL DEFAULT 0;
ALTER TABLE transactions ADD COLUMN callbacks_version bigint NOT NULL DEFAULT 0;

-- Which events of other services the gateway has applied (idempotent consumers).
CREATE TABLE consumed_events (
    event_id text PRIMARY KEY,
    consumed_at timestamptz NOT NULL DEFAULT now()
);
