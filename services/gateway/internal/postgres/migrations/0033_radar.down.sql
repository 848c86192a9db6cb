DROP INDEX IF EXISTS transactions_open_created_idx;
DROP TABLE IF EXISTS radar_slas;
