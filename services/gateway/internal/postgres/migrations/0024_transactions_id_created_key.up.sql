-- Monthly partitions of transactions (0024-0029, docs/partitioning.md), step 1 of 5.
--
-- A partitioned table's unique keys must hold its partition key (created_at): the partitioned
-- transactions' primary key is (id, created_at). 0028 attaches this table, as it is, as the
-- partition of everything created before the switch; ATTACH adopts an index of the same
-- definition that backs a constraint, and would otherwise build one while it holds the table.
-- Built concurrently here, so writers are not blocked while it is built on a large table (a
-- migration of its own: Postgres refuses CREATE INDEX CONCURRENTLY inside a transaction block);
-- a build that fails leaves an INVALID index: drop it and migrate again.
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS transactions_id_created_key ON transactions (id, created_at);
