-- Bulk retries of failed deliveries (issue 29, docs/contracts-bulk.md):
-- callback_retries holds each run's state and progress; its items record
-- every delivery a run treated, written in the same Postgres transaction as
-- the retry, so no delivery is retried twice by one run. River's tables
-- (the job queue) are made by rivermigrate in the same schema at start-up.
CREATE TABLE callback_retries (
    id bigserial PRIMARY KEY,
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
    retried bigint NOT NULL DEFAULT 0,
    skipped bigint NOT NULL DEFAULT 0,
    cursor_id bigint NOT NULL DEFAULT 0,
    run_seconds double precision NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL,
    finished_at timestamptz,
    updated_at timestamptz NOT NULL
);

CREATE TABLE callback_retry_items (
    run_id bigint NOT NULL REFERENCES callback_retries (id) ON DELETE CASCADE,
    delivery_id bigint NOT NULL,
    outcome text NOT NULL,
    PRIMARY KEY (run_id, delivery_id)
);

-- The failed deliveries by when they failed: the dry run's and the runs'
-- selection ("recover since T" reads a recent range).
CREATE INDEX deliveries_failed_idx ON deliveries (updated_at, id) WHERE status = 'failed';
