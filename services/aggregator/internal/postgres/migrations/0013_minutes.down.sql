ALTER TABLE tx_state DROP COLUMN IF EXISTS created_minute;
DROP TABLE IF EXISTS stats_minute;
