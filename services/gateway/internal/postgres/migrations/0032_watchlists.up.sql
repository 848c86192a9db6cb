-- Live watchlists and alerts (issue 29, docs/contracts-watchlists.md).
-- A watchlist is one user's live counter over a transaction-list filter
-- (filter: the list's query as protojson, page and take dropped; filter_key
-- its canonical text, with which identical watchlists of different users are
-- computed once) and a rolling window. scope_all/scope_merchant_ids are the
-- owner's merchant scope, refreshed at each of the owner's calls. crossed is
-- the alert state: a crossing is the compare-and-set false → true in the
-- transaction that inserts the alert and its outbox event, so a restart
-- never raises it twice; crossing back sets it false (re-armed).
CREATE TABLE watchlists (
    id bigserial PRIMARY KEY,
    user_id bigint NOT NULL,
    name text NOT NULL,
    filter jsonb NOT NULL,
    filter_key text NOT NULL,
    view_id bigint,
    query text NOT NULL DEFAULT '',
    metric text NOT NULL CHECK (metric IN ('count', 'sum', 'successRate')),
    window_minutes integer NOT NULL CHECK (window_minutes BETWEEN 5 AND 1440),
    threshold_comparison text CHECK (threshold_comparison IN ('above', 'below')),
    threshold_value numeric,
    threshold_currency text NOT NULL DEFAULT '',
    scope_all boolean NOT NULL,
    scope_merchant_ids integer[] NOT NULL DEFAULT '{}',
    crossed boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CHECK ((threshold_comparison IS NULL) = (threshold_value IS NULL))
);

CREATE INDEX watchlists_user_idx ON watchlists (user_id, id);

-- One row per crossing, kept after its watchlist is deleted (with copies of
-- what the watchlist was then). Paged newest first per user (keyset on id).
CREATE TABLE watchlist_alerts (
    id bigserial PRIMARY KEY,
    watchlist_id bigint REFERENCES watchlists (id) ON DELETE SET NULL,
    user_id bigint NOT NULL,
    watchlist_name text NOT NULL,
    metric text NOT NULL,
    comparison text NOT NULL,
    threshold numeric NOT NULL,
    currency text NOT NULL DEFAULT '',
    value numeric NOT NULL,
    window_minutes integer NOT NULL,
    view_id bigint,
    query text NOT NULL DEFAULT '',
    raised_at timestamptz NOT NULL DEFAULT now(),
    acknowledged_at timestamptz
);

CREATE INDEX watchlist_alerts_user_idx ON watchlist_alerts (user_id, id DESC);
CREATE INDEX watchlist_alerts_unacknowledged_idx ON watchlist_alerts (user_id) WHERE acknowledged_at IS NULL;
CREATE INDEX watchlist_alerts_watchlist_idx ON watchlist_alerts (watchlist_id);
