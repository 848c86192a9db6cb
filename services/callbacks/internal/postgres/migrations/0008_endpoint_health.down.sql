DROP INDEX deliveries_pending_url_idx;
DROP INDEX attempts_url_time_idx;
ALTER TABLE attempts DROP COLUMN duration_ms, DROP COLUMN callback_url_id;
ALTER TABLE callback_urls DROP COLUMN disabled_at, DROP COLUMN disabled_reason;
DROP TABLE url_breakers;
