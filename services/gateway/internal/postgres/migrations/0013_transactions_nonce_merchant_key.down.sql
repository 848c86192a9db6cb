DROP INDEX CONCURRENTLY IF EXISTS transactions_nonce_merchant_key;
