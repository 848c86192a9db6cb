-- Filter-wide bulk actions (issue 29, docs/contracts-bulk.md). bulk_runs
-- holds each run's state and progress (the Jobs page reads it);
-- bulk_run_items records every transaction a run treated, written in the
-- same Postgres transaction as the action: a crash rolls both back, and a
-- second attempt of the run skips what is there, so no transaction gets an
-- action twice from one run. River's own tables (the job queue) are made by
-- rivermigrate in the same schema at start-up.
CREATE TABLE bulk_runs (
    id bigserial PRIMARY KEY,
    action text NOT NULL,
    state text NOT NULL DEFAULT 'queued'
        CHECK (state IN ('queued', 'running', 'paused', 'cancelled', 'completed', 'failed')),
    filter jsonb NOT NULL,
    reason text NOT NULL,
    created_by bigint NOT NULL,
    created_by_name text NOT NULL DEFAULT '',
    scope_all boolean NOT NULL,
    scope_merchants integer[] NOT NULL DEFAULT '{}',
    expected_count bigint NOT NULL DEFAULT 0,
    total bigint NOT NULL DEFAULT 0,
    processed bigint NOT NULL DEFAULT 0,
    applied bigint NOT NULL DEFAULT 0,
    skipped bigint NOT NULL DEFAULT 0,
    failed bigint NOT NULL DEFAULT 0,
    cursor_id bigint NOT NULL DEFAULT 0,
    last_error text NOT NULL DEFAULT '',
    run_seconds double precision NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(),
    started_at timestamptz,
    finished_at timestamptz,
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bulk_runs_created_idx ON bulk_runs (created_at DESC, id DESC);

CREATE TABLE bulk_run_items (
    run_id bigint NOT NULL REFERENCES bulk_runs (id) ON DELETE CASCADE,
    transaction_id bigint NOT NULL,
    outcome text NOT NULL,
    at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, transaction_id)
);

-- The dry run's GROUP BY status, collab and provider with the count of
-- cancelled callbacks, as an index-only scan for a status filter with or
-- without a date range (bench/RESULTS.md, bulk actions). ON ONLY: instant,
-- and every partition made from now on gets it; Postgres refuses CREATE
-- INDEX CONCURRENTLY on the partitioned table, so the existing months are
-- built one by one outside this file (docs/contracts-bulk.md, "Index").
CREATE INDEX IF NOT EXISTS transactions_bulk_idx ON ONLY transactions (status, created_at, collab_id, provider_id, callbacks_canceled);
