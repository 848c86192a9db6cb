DROP INDEX CONCURRENTLY IF EXISTS transactions_id_created_key;
