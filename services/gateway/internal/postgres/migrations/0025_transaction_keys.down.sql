ALTER TABLE transactions DROP CONSTRAINT IF EXISTS transactions_legacy_bound;
DROP TABLE IF EXISTS transaction_partitioning;
DROP TRIGGER IF EXISTS transactions_keys_delete ON transactions;
DROP TRIGGER IF EXISTS transactions_keys_insert ON transactions;
DROP FUNCTION IF EXISTS transaction_keys_truncated();
DROP FUNCTION IF EXISTS transaction_keys_deleted();
DROP FUNCTION IF EXISTS transaction_keys_inserted();
DROP TABLE IF EXISTS transaction_keys;
