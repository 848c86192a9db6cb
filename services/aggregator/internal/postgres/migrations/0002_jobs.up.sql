-- Every background job of every service, from its run events
-- (docs/contracts-jobs.md). Whether a job is enabled is not here: it lives
-- in the NATS KV bucket paygate_jobs, where every replica of its service
-- reads it.
CREATE TABLE jobs (
    name text PRIMARY KEY,
    service text NOT NULL DEFAULT '',
    description text NOT NULL DEFAULT '',
    interval_ms bigint NOT NULL DEFAULT 0,
    -- When the newest process running the job started; runs of older
    -- processes no longer count.
    startup_at timestamptz,
    total_runs_since_startup bigint NOT NULL DEFAULT 0,
    -- The newest run's start, from its started or ended event.
    last_run_started timestamptz,
    -- The newest ended run: its start, its end, what came next.
    last_ended_run_started timestamptz,
    last_run_completed timestamptz,
    next_run_expected_at timestamptz,
    last_run_error text NOT NULL DEFAULT ''
);

-- Runs already counted, so that a redelivered ended event is counted once
-- (the newest 500 of each job are kept).
CREATE TABLE job_runs (
    job text NOT NULL REFERENCES jobs (name) ON DELETE CASCADE,
    run_id text NOT NULL,
    ended_at timestamptz NOT NULL,
    PRIMARY KEY (job, run_id)
);
CREATE INDEX job_runs_ended_idx ON job_runs (job, ended_at DESC);

-- The newest 50 notifications of each job.
CREATE TABLE job_notifications (
    job text NOT NULL REFERENCES jobs (name) ON DELETE CASCADE,
    run_id text NOT NULL,
    seq integer NOT NULL,
    at timestamptz NOT NULL,
    level integer NOT NULL,
    message text NOT NULL,
    PRIMARY KEY (job, run_id, seq)
);
CREATE INDEX job_notifications_at_idx ON job_notifications (job, at DESC, run_id, seq DESC);
