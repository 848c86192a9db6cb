-- Fees as the console edits them (issue 17, docs/contracts-fees.md).
--
-- Fee type 0 (None) is a fee that charges nothing (spec 02 §4): a specific
-- rule that wins over a broader one and waives its fee.
ALTER TABLE fees DROP CONSTRAINT fees_fee_type_check;
ALTER TABLE fees ADD CONSTRAINT fees_fee_type_check CHECK (fee_type IN (0, 1, 2));
ALTER TABLE fees ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();

-- The Fees page of one collab, and a merchant user's list (its collabs'
-- fees and the global ones, NULLs included), in id order; also the
-- candidates of a conflict check and of the preview by collab.
CREATE INDEX fees_collab_idx ON fees (collab_id, id);
-- The list filtered by currency, by id.
CREATE INDEX fees_currency_from_idx ON fees (currency_from, id);

-- The what-if preview reads the last 30 days of transactions of the
-- affected collabs (or of every collab, for a global fee): by time, index
-- only, the columns that decide a transaction's fee and its applied fee.
-- On a large table build it first with CREATE INDEX CONCURRENTLY IF NOT
-- EXISTS (same definition), so that this migration does not block writers
-- while it builds.
CREATE INDEX IF NOT EXISTS transactions_fee_preview_idx ON transactions (created_at)
    INCLUDE (collab_id, currency, transaction_type, pay_type_id, amount, applied_fee_amount);
