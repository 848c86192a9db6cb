DROP INDEX IF EXISTS transactions_not_confirmed_idx;
ALTER TABLE transactions DROP COLUMN IF EXISTS recovery_attempts;
