DROP INDEX CONCURRENTLY IF EXISTS transactions_fee_preview_idx;
