-- Minute resolution (issue 29, docs/statistics.md "Minutes"): counts and
-- amounts by UTC minute for the transactions made in the last 48 hours (a
-- job prunes older buckets), which answer the minutes at the ends of a range
-- that does not start or end on a whole hour. tx_state keeps the creation
-- minute, so that a status change leaves the right minute bucket; rows
-- written before this migration have none (their minute was never counted).
CREATE TABLE stats_minute (LIKE stats_hour INCLUDING ALL);
CREATE INDEX stats_minute_success_idx ON stats_minute (bucket) INCLUDE (merchant_id, transaction_type, currency, n, amount) WHERE status = 4;

-- A nullable column without a default: no rewrite, and the previous release
-- (which neither reads nor writes it) keeps working. The consumer writes
-- tx_state all the time: wait briefly for its lock rather than queue others.
SET lock_timeout = '5s';
ALTER TABLE tx_state ADD COLUMN created_minute timestamptz;
