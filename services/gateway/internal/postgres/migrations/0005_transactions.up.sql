-- The payment path: merchants' API secrets, how to reach each provider,
-- fees, transactions and their journal.

-- A merchant's API secret signs its payment calls (HMAC-SHA256). Stored
-- sealed with AES-GCM under PAYGATE_ENCRYPTION_KEY.
CREATE TABLE merchant_api_secrets (
    merchant_id integer PRIMARY KEY REFERENCES merchants (id) ON DELETE CASCADE,
    secret_sealed bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Where a provider's API answers and the shared secret its webhooks carry
-- (sealed like the API secrets).
CREATE TABLE provider_connections (
    provider_id integer PRIMARY KEY REFERENCES providers (id) ON DELETE CASCADE,
    base_url text NOT NULL,
    webhook_secret_sealed bytea NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- Fees (spec 02 §5). An empty collab, type or pay type matches any; the
-- most specific enabled fee wins, then the higher priority, then the lower id.
CREATE TABLE fees (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    collab_id integer REFERENCES collabs (id) ON DELETE CASCADE,
    transaction_type smallint CHECK (transaction_type IN (1, 2)),
    pay_type_id integer REFERENCES pay_types (id),
    currency_from text NOT NULL,
    currency_to text NOT NULL,
    amount_min numeric(20, 2) CHECK (amount_min >= 0),
    amount_max numeric(20, 2) CHECK (amount_max >= 0),
    fee_type smallint NOT NULL CHECK (fee_type IN (1, 2)),
    value numeric(20, 4) NOT NULL CHECK (value >= 0),
    payer smallint NOT NULL DEFAULT 2 CHECK (payer IN (1, 2)),
    priority integer NOT NULL DEFAULT 0,
    enabled boolean NOT NULL DEFAULT true,
    created_at timestamptz NOT NULL DEFAULT now(),
    CHECK (amount_min <= amount_max)
);

CREATE INDEX fees_currency_idx ON fees (currency_from, currency_to) WHERE enabled;

-- Transactions, sized for tens of millions of rows: bigint ids, names kept
-- on the row so that lists need no joins, and indexes for the lookups of
-- this issue (collab + date, status, polling, provider id). Monthly
-- partitioning is left for later: Postgres requires the partition key in
-- every unique constraint, and reference_id and (merchant_id, nonce) must
-- stay unique across months (docs/contracts-transactions.md).
CREATE TABLE transactions (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    reference_id text NOT NULL,
    merchant_id integer NOT NULL REFERENCES merchants (id),
    collab_id integer NOT NULL REFERENCES collabs (id),
    provider_id integer NOT NULL REFERENCES providers (id),
    pay_type_id integer NOT NULL REFERENCES pay_types (id),
    merchant_name text NOT NULL,
    provider_name text NOT NULL,
    pay_type_name text NOT NULL,
    nonce text NOT NULL,
    merchant_client_id text NOT NULL DEFAULT '',
    transaction_type smallint NOT NULL CHECK (transaction_type IN (1, 2)),
    status smallint NOT NULL,
    status_message text NOT NULL DEFAULT '',
    error_message text NOT NULL DEFAULT '',
    amount numeric(20, 2) NOT NULL CHECK (amount > 0),
    currency text NOT NULL,
    destination_amount numeric(20, 2) NOT NULL,
    destination_currency text NOT NULL,
    provider_transaction_id text,
    provider_tags text[] NOT NULL DEFAULT '{}',
    provider_data jsonb NOT NULL DEFAULT '{}',
    account_data jsonb NOT NULL DEFAULT '{}',
    payment_ip_address text NOT NULL DEFAULT '',
    user_agent text NOT NULL DEFAULT '',
    payment_method_type smallint NOT NULL DEFAULT 0,
    payment_method_value text NOT NULL DEFAULT '',
    applied_fee_id bigint,
    applied_fee_type smallint NOT NULL DEFAULT 0 CHECK (applied_fee_type IN (0, 1, 2)),
    applied_fee_value numeric(20, 4),
    applied_fee_amount numeric(20, 2),
    applied_fee_currency text NOT NULL DEFAULT '',
    applied_fee_payer smallint NOT NULL DEFAULT 0,
    callback_delivery_status smallint NOT NULL DEFAULT 0,
    callbacks_canceled boolean NOT NULL DEFAULT false,
    poll_attempts integer NOT NULL DEFAULT 0,
    next_poll_at timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    CONSTRAINT transactions_reference_key UNIQUE (reference_id),
    CONSTRAINT transactions_merchant_nonce_key UNIQUE (merchant_id, nonce)
);

CREATE INDEX transactions_collab_created_idx ON transactions (collab_id, created_at DESC, id DESC);
CREATE INDEX transactions_status_created_idx ON transactions (status, created_at DESC, id DESC);
CREATE INDEX transactions_provider_tid_idx ON transactions (provider_id, provider_transaction_id)
    WHERE provider_transaction_id IS NOT NULL;
-- The polling worker's queue: pending transactions whose provider polls.
CREATE INDEX transactions_poll_idx ON transactions (next_poll_at) WHERE next_poll_at IS NOT NULL;

-- The journal: every step of every transaction, with the stages the
-- Transaction Logs viewer shows. Payloads are stored with secrets masked.
CREATE TABLE transaction_logs (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    transaction_id bigint NOT NULL REFERENCES transactions (id) ON DELETE CASCADE,
    at timestamptz NOT NULL,
    stage text NOT NULL CHECK (stage IN ('Initialization', 'Transaction Creation', 'API Request',
        'API Response', 'Polling', 'Callback Processing', 'Status Change', 'UI Update')),
    level text NOT NULL CHECK (level IN ('Information', 'Warning', 'Error')),
    message text NOT NULL,
    source_context text NOT NULL DEFAULT '',
    application text NOT NULL DEFAULT 'paygate-gateway',
    transaction_update jsonb,
    content jsonb,
    headers jsonb,
    query_params jsonb,
    auth_data text NOT NULL DEFAULT '',
    webhook_request jsonb,
    webhook_response jsonb,
    webhook_headers jsonb,
    exception jsonb
);

CREATE INDEX transaction_logs_transaction_idx ON transaction_logs (transaction_id, id);
