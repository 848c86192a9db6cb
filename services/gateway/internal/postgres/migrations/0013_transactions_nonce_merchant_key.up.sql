-- The merchant's nonce is unique per merchant (0005's transactions_merchant_nonce_key, on
-- (merchant_id, nonce)), and the list's nonce filter, across merchants, had an index of its own
-- (0006's transactions_nonce_idx, on (nonce, created_at DESC)). One unique index on
-- (nonce, merchant_id) serves both: the uniqueness, the idempotent initialize's lookup of a
-- merchant's nonce, and the filter (a nonce matches at most one transaction per merchant, so its
-- page is sorted from a handful of rows). Every payment then writes one index entry fewer on
-- creation and on each status change; 0014 drops the two it replaces. Built concurrently, so
-- writers are not blocked while it is built on a large table; a build that fails leaves an
-- INVALID index: drop it and migrate again.
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS transactions_nonce_merchant_key ON transactions (nonce, merchant_id);
