ALTER TABLE transaction_totals_delta RESET (vacuum_truncate);
CREATE INDEX transactions_provider_tid_idx ON transactions (provider_id, provider_transaction_id)
    WHERE provider_transaction_id IS NOT NULL;
CREATE INDEX transactions_nonce_idx ON transactions (nonce, created_at DESC);
ALTER TABLE transactions ADD CONSTRAINT transactions_merchant_nonce_key UNIQUE (merchant_id, nonce);
