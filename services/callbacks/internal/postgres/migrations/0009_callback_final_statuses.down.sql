ALTER TABLE signing_secrets DROP COLUMN previous_until, DROP COLUMN previous_sealed;
DROP INDEX delivery_bodies_purge_idx;
ALTER TABLE delivery_bodies DROP COLUMN purged_at, DROP COLUMN created_at;
ALTER TABLE callback_urls DROP COLUMN final_statuses;
