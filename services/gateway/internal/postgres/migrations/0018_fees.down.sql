DROP INDEX transactions_fee_preview_idx;
DROP INDEX fees_currency_from_idx;
DROP INDEX fees_collab_idx;
ALTER TABLE fees DROP COLUMN updated_at;
DELETE FROM fees WHERE fee_type = 0;
ALTER TABLE fees DROP CONSTRAINT fees_fee_type_check;
ALTER TABLE fees ADD CONSTRAINT fees_fee_type_check CHECK (fee_type IN (1, 2));
