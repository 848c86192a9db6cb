-- The stuck-money radar (issue 29, docs/contracts-radar.md): the SLAs that say when a non-final
-- transaction is overdue, and the partial index the radar walks.
SET LOCAL lock_timeout = '5s';  -- this file only (one implicit transaction)

-- One row per (provider, pay type, direction); 0 is "any" (so no foreign key: the service checks
-- named providers and pay types). The most specific matching row wins (weights 4, 2, 1). The
-- all-zero row is the default, which the service never deletes.
CREATE TABLE radar_slas (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    provider_id integer NOT NULL DEFAULT 0 CHECK (provider_id >= 0),
    pay_type_id integer NOT NULL DEFAULT 0 CHECK (pay_type_id >= 0),
    transaction_type smallint NOT NULL DEFAULT 0 CHECK (transaction_type IN (0, 1, 2)),
    overdue_after_seconds integer NOT NULL CHECK (overdue_after_seconds BETWEEN 1 AND 2592000),
    updated_at timestamptz NOT NULL DEFAULT now(),
    updated_by text NOT NULL DEFAULT '',
    UNIQUE (provider_id, pay_type_id, transaction_type)
);

INSERT INTO radar_slas (provider_id, pay_type_id, transaction_type, overdue_after_seconds) VALUES (0, 0, 0, 1800);

-- The non-final transactions (payment.Status.Final is false: 0, 1, 2, 3, 300) oldest first. They
-- are few at any time, so this index stays small whatever the table's size. Postgres cannot build
-- an index on a partitioned table concurrently: on a large database build each partition's
-- matching index first with CREATE INDEX CONCURRENTLY, and this statement adopts them
-- (docs/contracts-radar.md, "Building the index on a large database").
CREATE INDEX IF NOT EXISTS transactions_open_created_idx ON transactions (created_at, id)
    WHERE status IN (0, 1, 2, 3, 300);
