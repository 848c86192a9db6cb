-- Monthly partitions of transactions (docs/partitioning.md), step 2 of 5: the keys.
--
-- Postgres enforces a unique index only within one partition, and the partition key (created_at)
-- is in none of reference_id, (merchant_id, nonce) and id alone. transaction_keys holds one small
-- row per transaction, written in the same statement as the transaction by the trigger below, and
-- keeps the three unique across every partition. It is also the way in by id, reference or nonce:
-- it gives the created_at that prunes a lookup to one partition, and it is what the journal,
-- validation results and fraud links reference (0028).
--
-- Rows are immutable: nothing changes a transaction's id, created_at, reference_id, merchant_id or
-- nonce.
SET lock_timeout = '5s';

CREATE TABLE transaction_keys (
    id bigint PRIMARY KEY,
    created_at timestamptz NOT NULL,
    reference_id text NOT NULL,
    merchant_id integer NOT NULL,
    nonce text NOT NULL,
    CONSTRAINT transaction_keys_reference_key UNIQUE (reference_id),
    CONSTRAINT transaction_keys_nonce_merchant_key UNIQUE (nonce, merchant_id)
);

-- Statement-level, from the transition table: one INSERT of a whole batch of payments (or a COPY)
-- writes its keys in one statement. A reused reference or nonce fails the writing statement with
-- 23505 naming the constraint above.
CREATE FUNCTION transaction_keys_inserted() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO transaction_keys (id, created_at, reference_id, merchant_id, nonce)
    SELECT id, created_at, reference_id, merchant_id, nonce FROM added;
    RETURN NULL;
END $$;

CREATE FUNCTION transaction_keys_deleted() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    DELETE FROM transaction_keys k USING removed r WHERE k.id = r.id;
    RETURN NULL;
END $$;

CREATE FUNCTION transaction_keys_truncated() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    -- CASCADE: the journal, validation results and fraud links reference the keys (0028), as
    -- they referenced the transactions.
    TRUNCATE transaction_keys CASCADE;
    RETURN NULL;
END $$;

-- Until the switch (0028) the keys of new transactions come from the unpartitioned table, so that
-- the backfill (0026) needs to copy only what was there before this migration: CREATE TRIGGER
-- waits for the writers in flight, and every row committed after it has its key.
CREATE TRIGGER transactions_keys_insert AFTER INSERT ON transactions
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION transaction_keys_inserted();
CREATE TRIGGER transactions_keys_delete AFTER DELETE ON transactions
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION transaction_keys_deleted();

-- Where the unpartitioned table's rows end: 0028 attaches it as the partition of everything
-- created before legacy_until, and monthly partitions start there. At least a week ahead of now,
-- so that rows written while 0026 and 0027 run still fall before it. The CHECK, validated
-- without blocking writers by 0027, lets ATTACH skip its scan of the table.
CREATE TABLE transaction_partitioning (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    legacy_until timestamptz NOT NULL
);
INSERT INTO transaction_partitioning (legacy_until)
VALUES ((date_trunc('month', (now() + interval '7 days') AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC');

DO $$
BEGIN
    EXECUTE format('ALTER TABLE transactions ADD CONSTRAINT transactions_legacy_bound CHECK (created_at < %L) NOT VALID',
        (SELECT legacy_until FROM transaction_partitioning));
END $$;
