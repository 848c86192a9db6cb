DROP INDEX CONCURRENTLY IF EXISTS transactions_amount_idx;
