-- Export files (issue 16, docs/contracts-files.md). A row is written with
-- its FileExportRequested event (outbox) when an export is asked for; the
-- export worker claims it with a compare-and-set on status and lease, writes
-- the file to the file store, and records the outcome here. Rows stay
-- (Deleted, -3) after the retention job removed their bytes.
CREATE TABLE files (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name text NOT NULL,
    -- 0 Scheduled, 1 In Progress, 2 Success, -1 Failed, -2 Cancelled, -3 Deleted.
    status smallint NOT NULL DEFAULT 0 CHECK (status BETWEEN -3 AND 2),
    -- 0 CSV, 1 Excel, 2 PDF.
    file_type smallint NOT NULL CHECK (file_type BETWEEN 0 AND 2),
    export_type integer NOT NULL,
    collab_id integer NOT NULL DEFAULT 0,
    -- The request as validated: the filter as the list reads it, the
    -- columns in order, the time zone (export.Request).
    request jsonb NOT NULL,
    created_by text NOT NULL,
    created_by_id bigint NOT NULL,
    -- The requester's merchant scope: every merchant (Admin, Support), or
    -- these merchants. A merchant user sees a file only when its merchants
    -- hold all of these.
    scope_all boolean NOT NULL,
    scope_merchants integer[] NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    status_message text NOT NULL DEFAULT '',
    error_message text NOT NULL DEFAULT '',
    -- The claim: which worker writes it, until when (renewed while it
    -- writes), and how many claims there were.
    worker text,
    lease_until timestamptz,
    attempt integer NOT NULL DEFAULT 0,
    started_at timestamptz,
    finished_at timestamptz,
    -- The outcome (Success): where the bytes are, and the manifest.
    storage_key text,
    record_count bigint NOT NULL DEFAULT 0,
    file_size_bytes bigint NOT NULL DEFAULT 0,
    sha256 text NOT NULL DEFAULT '',
    manifest jsonb
);

-- The Files page: a global caller's list, newest first (offset pages).
CREATE INDEX files_created_idx ON files (created_at DESC, id DESC);
-- A merchant user's list: files of its merchants, newest first. The GIN
-- index finds the files whose scope holds one of the caller's merchants;
-- the list keeps those within the caller's merchants (<@).
CREATE INDEX files_scope_idx ON files USING gin (scope_merchants) WHERE NOT scope_all;
-- The retention job: finished files by age.
CREATE INDEX files_retention_idx ON files (created_at) WHERE status IN (2, -1, -2);
