DROP TABLE IF EXISTS consumed_events;
ALTER TABLE transactions DROP COLUMN IF EXISTS callbacks_version;
ALTER TABLE transactions DROP COLUMN IF EXISTS callbacks_total;
ALTER TABLE transactions DROP COLUMN IF EXISTS callbacks_delivered;
ALTER TABLE transactions ADD COLUMN IF NOT EXISTS callback_delivery_status smallint NOT NULL DEFAULT 0;
