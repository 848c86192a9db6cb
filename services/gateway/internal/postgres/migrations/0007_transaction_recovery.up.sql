-- Recovery of transactions left at Not Confirmed (status 1) by a process that
-- died between creating the row and recording the provider's answer.
-- recovery_attempts counts the recovery sweeps that claimed the row, so that a
-- crash loop cannot resubmit a payment more than the configured number of times.
ALTER TABLE transactions ADD COLUMN recovery_attempts integer NOT NULL DEFAULT 0;

CREATE INDEX transactions_not_confirmed_idx ON transactions (updated_at, id) WHERE status = 1;
