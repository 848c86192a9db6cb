-- Monthly partitions of transactions (docs/partitioning.md), step 4 of 5: validate 0025's bound.
-- VALIDATE reads the table under a SHARE UPDATE EXCLUSIVE lock, which writers do not wait for (a
-- migration of its own, so that no stronger lock is held meanwhile).
ALTER TABLE transactions VALIDATE CONSTRAINT transactions_legacy_bound;
