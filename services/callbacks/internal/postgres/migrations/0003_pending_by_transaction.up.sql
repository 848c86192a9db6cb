-- Deliveries are looked up by transaction only to cancel the pending ones
-- (a callbacks cancel); most deliveries are stored already settled (sent
-- with their first attempt), so the index keeps only the pending ones.
CREATE INDEX deliveries_pending_transaction_idx ON deliveries (transaction_id) WHERE status = 'pending';
DROP INDEX deliveries_transaction_idx;
