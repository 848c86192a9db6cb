-- The gateway's live tunables (issue 17, docs/contracts-settings.md): one row
-- per key of the registry (services/gateway/internal/settings) that was ever
-- set; a key without a row is at its default. The registry is small and
-- fixed, so the table stays a handful of rows that every replica reads whole
-- at most once a second; the primary key is the only index it needs.
CREATE TABLE settings (
    key text PRIMARY KEY CHECK (key ~ '^[A-Za-z][A-Za-z0-9]{0,99}$'),
    value jsonb NOT NULL,
    -- Counts the key's changes, from 1.
    version bigint NOT NULL CHECK (version > 0),
    updated_at timestamptz NOT NULL DEFAULT now(),
    updated_by text NOT NULL
);
