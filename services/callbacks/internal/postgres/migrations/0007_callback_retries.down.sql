DROP INDEX deliveries_failed_idx;
DROP TABLE callback_retry_items;
DROP TABLE callback_retries;
