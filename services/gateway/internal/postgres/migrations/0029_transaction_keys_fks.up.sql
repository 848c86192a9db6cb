-- Monthly partitions of transactions (docs/partitioning.md), after the switch: check that every
-- journal entry, validation result and fraud link of before 0028 has its key. VALIDATE takes a
-- SHARE UPDATE EXCLUSIVE lock on each table, which writers do not wait for.
ALTER TABLE transaction_logs VALIDATE CONSTRAINT transaction_logs_transaction_id_fkey;
ALTER TABLE validation_results VALIDATE CONSTRAINT validation_results_transaction_id_fkey;
ALTER TABLE fraud_transactions VALIDATE CONSTRAINT fraud_transactions_transaction_id_fkey;
