-- The read side of payments: the last state of every transaction, and its
-- counts and amounts rolled up by hour, day and month (UTC). A row of a
-- rollup is keyed by its bucket (the UTC start of the hour, day or month
-- the transaction was made in) and every dimension the dashboard groups or
-- filters by (docs/statistics.md).

-- The newest state seen of each transaction: an event applies only when its
-- version is higher (compare-and-set), so that a redelivered, late or
-- replayed event changes nothing. Version 0 is a placeholder row, inserted
-- before locking so that two writers of a new transaction serialize on it;
-- it stands for "no state yet" and counts nowhere.
CREATE TABLE tx_state (
    id bigint PRIMARY KEY,
    version bigint NOT NULL DEFAULT 0,
    created_hour timestamptz NOT NULL DEFAULT 'epoch',
    merchant_id integer NOT NULL DEFAULT 0,
    collab_id integer NOT NULL DEFAULT 0,
    provider_id integer NOT NULL DEFAULT 0,
    status integer NOT NULL DEFAULT 0,
    transaction_type smallint NOT NULL DEFAULT 0,
    currency text NOT NULL DEFAULT '',
    amount numeric NOT NULL DEFAULT 0
);

CREATE TABLE stats_hour (
    bucket timestamptz NOT NULL,
    merchant_id integer NOT NULL,
    collab_id integer NOT NULL,
    provider_id integer NOT NULL,
    status integer NOT NULL,
    transaction_type smallint NOT NULL,
    currency text NOT NULL,
    n bigint NOT NULL,
    amount numeric NOT NULL,
    PRIMARY KEY (bucket, merchant_id, collab_id, provider_id, status, transaction_type, currency)
);

CREATE TABLE stats_day (LIKE stats_hour INCLUDING ALL);
CREATE TABLE stats_month (LIKE stats_hour INCLUDING ALL);

-- Successful rows answer the cash-in and cash-out figures.
CREATE INDEX stats_hour_success_idx ON stats_hour (bucket) INCLUDE (merchant_id, transaction_type, currency, n, amount) WHERE status = 4;
CREATE INDEX stats_day_success_idx ON stats_day (bucket) INCLUDE (merchant_id, transaction_type, currency, n, amount) WHERE status = 4;

-- Names as the newest applied event carried them.
CREATE TABLE merchants (
    id integer PRIMARY KEY,
    name text NOT NULL
);

CREATE TABLE providers (
    id integer PRIMARY KEY,
    name text NOT NULL
);

-- Currency rates against USD, as the gateway set them: a rate is in force
-- from its effective UTC day until the next one's. A later rate id for the
-- same day replaces the earlier.
CREATE TABLE rates (
    currency text NOT NULL,
    effective_from date NOT NULL,
    usd_rate numeric NOT NULL CHECK (usd_rate > 0),
    rate_id bigint NOT NULL,
    PRIMARY KEY (currency, effective_from)
);

-- One row: the newest transaction event time applied (as_of of the
-- statistics), and whether a rebuild started and has not finished.
CREATE TABLE progress (
    id boolean PRIMARY KEY DEFAULT true CHECK (id),
    as_of timestamptz,
    rebuild_started_at timestamptz,
    rebuild_finished_at timestamptz
);
INSERT INTO progress (id) VALUES (true);
