-- Callback URLs: where a collab's final transactions are posted. merchant_id
-- is the collab's merchant as the gateway resolved it, for scope checks.
CREATE TABLE callback_urls (
    id bigserial PRIMARY KEY,
    collab_id integer NOT NULL,
    merchant_id integer NOT NULL,
    url text NOT NULL,
    is_enabled boolean NOT NULL DEFAULT true,
    max_attempts smallint NOT NULL DEFAULT 3 CHECK (max_attempts BETWEEN 1 AND 12),
    add_signature boolean NOT NULL DEFAULT true,
    -- NULL for every type, 1 Cash In, 2 Cash Out.
    transaction_type smallint CHECK (transaction_type IN (1, 2)),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);

CREATE INDEX callback_urls_collab_idx ON callback_urls (collab_id, id);
CREATE INDEX callback_urls_merchant_idx ON callback_urls (merchant_id, id);

-- Merchants' signing keys, sealed with AES-256-GCM (owner "merchant:<id>").
CREATE TABLE signing_secrets (
    merchant_id integer PRIMARY KEY,
    sealed bytea NOT NULL,
    created_at timestamptz NOT NULL,
    rotated_at timestamptz
);

-- The gateway's transactions as its events told them: what a callback body
-- says (state) and whether callbacks are cancelled.
CREATE TABLE transactions (
    id bigint PRIMARY KEY,
    merchant_id integer NOT NULL,
    collab_id integer NOT NULL,
    type smallint NOT NULL,
    status smallint NOT NULL,
    callbacks_canceled boolean NOT NULL DEFAULT false,
    state jsonb NOT NULL,
    -- The state's own updated time: an older state never replaces a newer.
    state_updated_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);

-- Each transaction's delivery tally, announced by CallbackDeliveryChanged
-- with a version that grows with every change. Apart from transactions so
-- that its frequent updates rewrite a narrow row.
CREATE TABLE tallies (
    transaction_id bigint PRIMARY KEY REFERENCES transactions (id),
    merchant_id integer NOT NULL,
    delivered integer NOT NULL,
    total integer NOT NULL,
    failed integer NOT NULL,
    version bigint NOT NULL,
    updated_at timestamptz NOT NULL
);

-- The JSON body of the deliveries one event (or one enqueue) made, once
-- for all its callback URLs and apart from the often-updated deliveries.
CREATE TABLE delivery_bodies (
    event_id text PRIMARY KEY,
    body text NOT NULL
);

-- One transaction outcome for one callback URL. The body (delivery_bodies,
-- by event_id) and webhook id are fixed for all its attempts. A claim sets lease_id and lease_until and
-- leaves next_attempt_at alone: a delivery whose claimer died is claimable
-- again once the lease ends, and a claim touches no indexed column, so it is
-- a HOT update (hence the fillfactor). Deliveries are written several times
-- each and read by few queries, so they carry few indexes: webhook ids are
-- unique by construction (UUIDv7), not by an index.
CREATE TABLE deliveries (
    id bigserial PRIMARY KEY,
    webhook_id text NOT NULL,
    -- The event that made it (its Nats-Msg-Id), or "enqueue:<uuid>".
    event_id text NOT NULL,
    transaction_id bigint NOT NULL REFERENCES transactions (id),
    merchant_id integer NOT NULL,
    -- No foreign key: deleting a URL keeps its deliveries (and their ids).
    callback_url_id bigint NOT NULL,
    url text NOT NULL,
    sign boolean NOT NULL,
    attempts_made integer NOT NULL DEFAULT 0,
    max_attempts integer NOT NULL,
    status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
    next_attempt_at timestamptz NOT NULL,
    lease_id uuid,
    lease_until timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    -- A redelivered event makes no second delivery.
    UNIQUE (event_id, callback_url_id)
) WITH (fillfactor = 80);

-- Due deliveries, oldest due first; leased ones are skipped by a filter.
CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_transaction_idx ON deliveries (transaction_id);

-- Every attempt of every delivery; the body sent is its delivery's.
CREATE TABLE attempts (
    id bigserial PRIMARY KEY,
    delivery_id bigint NOT NULL REFERENCES deliveries (id),
    transaction_id bigint NOT NULL,
    merchant_id integer NOT NULL,
    created_at timestamptz NOT NULL,
    url text NOT NULL,
    response_code integer NOT NULL,
    status text NOT NULL CHECK (status IN ('Success', 'Failed', 'Retried')),
    attempt_number integer NOT NULL,
    error_message text NOT NULL DEFAULT ''
);

CREATE INDEX attempts_transaction_idx ON attempts (transaction_id, id DESC);
