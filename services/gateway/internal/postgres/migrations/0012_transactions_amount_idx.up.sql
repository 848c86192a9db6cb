-- An amount range is counted from the rows (the rollups keep no amounts): without a collab,
-- merchant or date range to narrow it, that read the whole table. This index makes the count and
-- per-currency totals of an amount range proportional to its matches, and its page too: it carries
-- currency, status and type for the filters that come with it, and created_at and id for the
-- page's order, so both read only this index (the planner would otherwise walk the newest rows
-- of transactions_created_idx until a rare range filled the page). Built concurrently, so writers
-- are not blocked while it is built on a large table; a build that fails leaves an INVALID index:
-- drop it and migrate again.
CREATE INDEX CONCURRENTLY IF NOT EXISTS transactions_amount_idx ON transactions (amount)
    INCLUDE (currency, status, transaction_type, created_at, id);
