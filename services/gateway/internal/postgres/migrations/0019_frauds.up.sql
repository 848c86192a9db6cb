-- Frauds (issue 17, docs/contracts-frauds.md): what the fraud-detection job
-- flags, the transactions behind each flag, and the job's progress.
--
-- A fraud belongs to one merchant (every rule counts within a merchant), so
-- a merchant user's scope is one column. A flag is unique per rule, merchant,
-- what it counted by (basis: merchant client id, IP or user agent), client
-- and window: a run over rows already scanned updates the same row.
CREATE TABLE client_frauds (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    reference_id text NOT NULL,
    rule text NOT NULL CHECK (rule IN ('velocity', 'amount-spike', 'failures-then-success', 'shared-identity')),
    basis text NOT NULL CHECK (basis IN ('merchant-client-id', 'ip', 'user-agent')),
    merchant_id integer NOT NULL REFERENCES merchants (id),
    client_id text NOT NULL,
    merchant_client_id text NOT NULL DEFAULT '',
    window_start timestamptz NOT NULL,
    window_minutes integer NOT NULL,
    -- What the rule measured (payments, ratio to the average, failures,
    -- client ids) and the threshold it was held against; level follows
    -- from their ratio.
    observed numeric NOT NULL,
    threshold numeric NOT NULL,
    level smallint NOT NULL CHECK (level BETWEEN 1 AND 4),
    reason text NOT NULL,
    transaction_count integer NOT NULL DEFAULT 0,
    detected_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    -- 0 Not Reviewed, 1 Confirmed, 2 Denied.
    review_status smallint NOT NULL DEFAULT 0 CHECK (review_status IN (0, 1, 2)),
    review_completed_at timestamptz,
    reviewed_by text NOT NULL DEFAULT '',
    reviewed_by_id bigint,
    notes text NOT NULL DEFAULT '',
    callbacks_canceled boolean NOT NULL DEFAULT false,
    CONSTRAINT client_frauds_reference_key UNIQUE (reference_id),
    CONSTRAINT client_frauds_flag_key UNIQUE (rule, merchant_id, basis, client_id, window_start)
);

-- The Fraud Management list: newest detected first (detected_at DESC, id
-- DESC), over a date range, for every merchant, one merchant (a merchant
-- user's scope or the admin's merchant filter), or one review status; the
-- review status rides along so that a status filter is read from the index.
CREATE INDEX client_frauds_detected_idx ON client_frauds (detected_at DESC, id DESC) INCLUDE (review_status, merchant_id);
CREATE INDEX client_frauds_merchant_detected_idx ON client_frauds (merchant_id, detected_at DESC, id DESC) INCLUDE (review_status);
CREATE INDEX client_frauds_status_detected_idx ON client_frauds (review_status, detected_at DESC, id DESC) INCLUDE (merchant_id);
-- Exact-match filters.
CREATE INDEX client_frauds_client_idx ON client_frauds (client_id, detected_at DESC);
CREATE INDEX client_frauds_merchant_client_idx ON client_frauds (merchant_client_id, detected_at DESC)
    WHERE merchant_client_id <> '';

-- The transactions of each fraud. By fraud (the list's expanded rows), and
-- by transaction (the transactionId filter).
CREATE TABLE fraud_transactions (
    fraud_id bigint NOT NULL REFERENCES client_frauds (id) ON DELETE CASCADE,
    transaction_id bigint NOT NULL REFERENCES transactions (id) ON DELETE CASCADE,
    PRIMARY KEY (fraud_id, transaction_id)
);
CREATE INDEX fraud_transactions_transaction_idx ON fraud_transactions (transaction_id, fraud_id);

-- Each client's payments per currency and hour of creation: the history
-- the amount-spike rule averages. A pass recomputes (replaces) the hours it
-- scans from their start, so that a pass over rows already scanned counts
-- them once.
CREATE TABLE fraud_client_stats (
    merchant_id integer NOT NULL,
    merchant_client_id text NOT NULL,
    currency text NOT NULL,
    hour timestamptz NOT NULL,
    payments bigint NOT NULL,
    amount numeric NOT NULL,
    PRIMARY KEY (merchant_id, merchant_client_id, currency, hour)
);
-- A pass replaces the hours from where it starts.
CREATE INDEX fraud_client_stats_hour_idx ON fraud_client_stats (hour);

-- The job's watermark: transactions created before it were scanned. One
-- row; a run moves it in the transaction that writes its flags.
CREATE TABLE fraud_detection_state (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    scanned_until timestamptz,
    last_run_at timestamptz
);
INSERT INTO fraud_detection_state DEFAULT VALUES;


-- The job reads transactions by creation time through 0006's
-- transactions_created_idx; no index of its own, so that the payment path
-- writes no more than before (bench/RESULTS.md, "Fraud detection").
