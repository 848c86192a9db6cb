-- Fewer writes per payment (bench/initbench):
--
-- The two indexes 0013's transactions_nonce_merchant_key replaces.
ALTER TABLE transactions DROP CONSTRAINT transactions_merchant_nonce_key;
DROP INDEX transactions_nonce_idx;

-- A provider's webhook finds its transaction by (provider_id, provider_transaction_id) through
-- transactions_ptid_idx (provider_transaction_id, created_at DESC), whose leading column is as
-- selective: a provider's id for a payment is matched by at most a few transactions of all the
-- providers. The second index on the same column cost every status change that set it one more
-- index entry.
DROP INDEX transactions_provider_tid_idx;

-- The totals fold (Payments.RunTotals) empties transaction_totals_delta every second and vacuums
-- it. Truncating the emptied pages at the end of each vacuum needs an ACCESS EXCLUSIVE lock, which
-- the payment path's inserts into the table (its triggers) queued behind while vacuum waited for
-- it; the pages are filled again within the second anyway.
ALTER TABLE transaction_totals_delta SET (vacuum_truncate = false);
