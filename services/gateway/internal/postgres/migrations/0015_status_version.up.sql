-- Each transaction's version (issue 14): 1 when made, one more at every
-- status change, in the UPDATE that changes the status. Events carry it
-- (TransactionState.version), so that a consumer (the aggregator) keeps the
-- highest version it has seen and a redelivered or late event changes
-- nothing. Adding a column with a constant default rewrites no rows.
ALTER TABLE transactions ADD COLUMN status_version bigint NOT NULL DEFAULT 1;
