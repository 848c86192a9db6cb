-- The fees' what-if preview (migration 0018, docs/contracts-fees.md) reads the last 30 days of
-- transactions of the affected collabs (or of every collab, for a global fee): by time, index
-- only, the columns that decide a transaction's fee and its applied fee. Built concurrently, so
-- writers are not blocked while it is built on a large table (a migration of its own: Postgres
-- refuses CREATE INDEX CONCURRENTLY inside a transaction block); a build that fails leaves an
-- INVALID index: drop it and migrate again.
CREATE INDEX CONCURRENTLY IF NOT EXISTS transactions_fee_preview_idx ON transactions (created_at)
    INCLUDE (collab_id, currency, transaction_type, pay_type_id, amount, applied_fee_amount);
