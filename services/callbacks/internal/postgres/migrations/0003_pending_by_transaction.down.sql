CREATE INDEX deliveries_transaction_idx ON deliveries (transaction_id);
DROP INDEX deliveries_pending_transaction_idx;
