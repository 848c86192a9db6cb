ALTER TABLE activity_log DROP COLUMN proofs, DROP COLUMN confirmation_id;
DROP TABLE used_confirmations;
