-- Indexes for the advanced transaction list, its totals and the log search
-- (docs/contracts-transactions.md, "Transaction list").
--
-- The three range indexes keep the list's order (created_at DESC, id DESC)
-- and carry the columns the list filters and totals read most (status,
-- type, amount, currency, merchant, collab), so that the page, the count
-- and the per-currency sums of a collab, merchant or date range are
-- index-only scans. They replace 0005's plain collab index.
DROP INDEX transactions_collab_created_idx;
CREATE INDEX transactions_collab_created_idx ON transactions (collab_id, created_at DESC, id DESC)
    INCLUDE (status, transaction_type, amount, currency, merchant_id);
CREATE INDEX transactions_merchant_created_idx ON transactions (merchant_id, created_at DESC, id DESC)
    INCLUDE (status, transaction_type, amount, currency, collab_id);
CREATE INDEX transactions_created_idx ON transactions (created_at DESC, id DESC)
    INCLUDE (status, transaction_type, amount, currency, merchant_id, collab_id);

-- Exact-match filters: small partial indexes, skipping the empty default.
CREATE INDEX transactions_ptid_idx ON transactions (provider_transaction_id, created_at DESC)
    WHERE provider_transaction_id IS NOT NULL;
CREATE INDEX transactions_merchant_cid_idx ON transactions (merchant_client_id, created_at DESC)
    WHERE merchant_client_id <> '';
CREATE INDEX transactions_nonce_idx ON transactions (nonce, created_at DESC);
CREATE INDEX transactions_pm_value_idx ON transactions (payment_method_value, created_at DESC)
    WHERE payment_method_value <> '';
CREATE INDEX transactions_payment_ip_idx ON transactions (payment_ip_address, created_at DESC)
    WHERE payment_ip_address <> '';

-- The log search reads one window of at most 60 minutes of the journal.
CREATE INDEX transaction_logs_at_idx ON transaction_logs (at);
