-- Exact counts and per-currency totals of the transaction list without
-- reading every matching row (issue 4, "Benchmarks").
--
-- The list counts by collab, merchant, status, type, currency and payment
-- method type over a created_at range. Those counts are kept here per hour
-- and per day of creation (UTC), so that a range reads its whole hours and
-- days from the rollups and only the partial hours at its two ends from the
-- transactions themselves. Console dates are whole days in a time zone with
-- a whole-hour offset, so their ends fall on an hour boundary or a
-- millisecond before one (23:59:59.999).
--
-- Writers never update a shared row: triggers on transactions append signed
-- deltas (+1/-1 and the amount) to transaction_totals_delta in the same
-- Postgres transaction as the change, so the deltas commit or roll back with
-- it and concurrent status changes (compare-and-set in ChangeStatus) cannot
-- race. fold_transaction_totals, run by one process at a time, moves the
-- committed deltas into the hourly and daily rollups in one statement.
-- Readers add the rollups and the deltas not folded yet: any snapshot sees
-- either a delta or its folded sum, never both or neither.
--
-- build_transaction_totals recomputes everything from the transactions (for
-- a table that had rows before this migration, or to repair); until it has
-- run once, transaction_totals_state.built_at is NULL and the list counts
-- rows as before.

CREATE TABLE transaction_totals_hourly (
    collab_id integer NOT NULL,
    hour timestamptz NOT NULL,
    merchant_id integer NOT NULL,
    status smallint NOT NULL,
    transaction_type smallint NOT NULL,
    currency text NOT NULL,
    payment_method_type smallint NOT NULL,
    n bigint NOT NULL,
    amount numeric NOT NULL,
    PRIMARY KEY (collab_id, hour, merchant_id, status, transaction_type, currency, payment_method_type)
        INCLUDE (n, amount)
) WITH (parallel_workers = 0); -- a count reads a few thousand rows: starting workers costs more
-- Covering, like the primary key: a count reads index pages only. By collab
-- (the primary key), by merchant, and by time for every collab at once.
CREATE INDEX transaction_totals_hourly_merchant_idx ON transaction_totals_hourly (merchant_id, hour)
    INCLUDE (collab_id, status, transaction_type, currency, payment_method_type, n, amount);
CREATE INDEX transaction_totals_hourly_hour_idx ON transaction_totals_hourly (hour)
    INCLUDE (collab_id, merchant_id, status, transaction_type, currency, payment_method_type, n, amount);
-- Rows whose count fell to zero (every pending transaction of an hour became
-- final), for the fold to delete.
CREATE INDEX transaction_totals_hourly_zero_idx ON transaction_totals_hourly (hour) WHERE n = 0;

CREATE TABLE transaction_totals_daily (
    collab_id integer NOT NULL,
    day timestamptz NOT NULL,
    merchant_id integer NOT NULL,
    status smallint NOT NULL,
    transaction_type smallint NOT NULL,
    currency text NOT NULL,
    payment_method_type smallint NOT NULL,
    n bigint NOT NULL,
    amount numeric NOT NULL,
    PRIMARY KEY (collab_id, day, merchant_id, status, transaction_type, currency, payment_method_type)
        INCLUDE (n, amount)
) WITH (parallel_workers = 0);
CREATE INDEX transaction_totals_daily_merchant_idx ON transaction_totals_daily (merchant_id, day)
    INCLUDE (collab_id, status, transaction_type, currency, payment_method_type, n, amount);
CREATE INDEX transaction_totals_daily_day_idx ON transaction_totals_daily (day)
    INCLUDE (collab_id, merchant_id, status, transaction_type, currency, payment_method_type, n, amount);
CREATE INDEX transaction_totals_daily_zero_idx ON transaction_totals_daily (day) WHERE n = 0;

-- Append-only, no index: writers only insert, the fold (Payments.RunTotals)
-- empties it every second, readers scan what is left.
CREATE TABLE transaction_totals_delta (
    collab_id integer NOT NULL,
    hour timestamptz NOT NULL,
    merchant_id integer NOT NULL,
    status smallint NOT NULL,
    transaction_type smallint NOT NULL,
    currency text NOT NULL,
    payment_method_type smallint NOT NULL,
    n bigint NOT NULL,
    amount numeric NOT NULL
) WITH (parallel_workers = 0);

CREATE TABLE transaction_totals_state (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    built_at timestamptz
);

CREATE FUNCTION transaction_totals_inserted() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO transaction_totals_delta
        (collab_id, hour, merchant_id, status, transaction_type, currency, payment_method_type, n, amount)
    SELECT collab_id, date_trunc('hour', created_at, 'UTC'), merchant_id, status, transaction_type, currency,
        payment_method_type, count(*), sum(amount)
    FROM added GROUP BY 1, 2, 3, 4, 5, 6, 7;
    RETURN NULL;
END $$;

CREATE FUNCTION transaction_totals_deleted() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO transaction_totals_delta
        (collab_id, hour, merchant_id, status, transaction_type, currency, payment_method_type, n, amount)
    SELECT collab_id, date_trunc('hour', created_at, 'UTC'), merchant_id, status, transaction_type, currency,
        payment_method_type, -count(*), -sum(amount)
    FROM removed GROUP BY 1, 2, 3, 4, 5, 6, 7;
    RETURN NULL;
END $$;

CREATE FUNCTION transaction_totals_updated() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO transaction_totals_delta
        (collab_id, hour, merchant_id, status, transaction_type, currency, payment_method_type, n, amount)
    VALUES (OLD.collab_id, date_trunc('hour', OLD.created_at, 'UTC'), OLD.merchant_id, OLD.status,
            OLD.transaction_type, OLD.currency, OLD.payment_method_type, -1, -OLD.amount),
        (NEW.collab_id, date_trunc('hour', NEW.created_at, 'UTC'), NEW.merchant_id, NEW.status,
            NEW.transaction_type, NEW.currency, NEW.payment_method_type, 1, NEW.amount);
    RETURN NULL;
END $$;

CREATE FUNCTION transaction_totals_truncated() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    TRUNCATE transaction_totals_hourly, transaction_totals_daily, transaction_totals_delta;
    RETURN NULL;
END $$;

-- Statement-level for inserts and deletes (a COPY of 100,000 rows appends
-- one delta per key, not per row); row-level for updates, so that the WHEN
-- clause skips the many updates that change none of the counted columns
-- (callback tally, polling schedule, recovery attempts) without a call.
CREATE TRIGGER transactions_totals_insert AFTER INSERT ON transactions
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION transaction_totals_inserted();
CREATE TRIGGER transactions_totals_delete AFTER DELETE ON transactions
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION transaction_totals_deleted();
CREATE TRIGGER transactions_totals_update
    AFTER UPDATE OF collab_id, merchant_id, created_at, status, transaction_type, currency, payment_method_type, amount
    ON transactions FOR EACH ROW
    WHEN ((OLD.collab_id, OLD.merchant_id, OLD.created_at, OLD.status, OLD.transaction_type, OLD.currency,
           OLD.payment_method_type, OLD.amount)
        IS DISTINCT FROM (NEW.collab_id, NEW.merchant_id, NEW.created_at, NEW.status, NEW.transaction_type,
           NEW.currency, NEW.payment_method_type, NEW.amount))
    EXECUTE FUNCTION transaction_totals_updated();
CREATE TRIGGER transactions_totals_truncate AFTER TRUNCATE ON transactions
    FOR EACH STATEMENT EXECUTE FUNCTION transaction_totals_truncated();

-- The triggers hold a lock on transactions until this migration commits, so
-- an empty table stays empty meanwhile and its (empty) rollup is exact now;
-- a table with rows waits for build_transaction_totals.
INSERT INTO transaction_totals_state (built_at)
SELECT CASE WHEN EXISTS (SELECT 1 FROM transactions) THEN NULL ELSE now() END;

-- The fold and the build serialize on one advisory lock per schema (the
-- delta table's oid), so that schemas sharing a database never wait on
-- each other.
CREATE FUNCTION transaction_totals_lock_key() RETURNS integer
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    SELECT 'transaction_totals_delta'::regclass::oid::integer
$$;

-- Moves the committed deltas into the rollups and returns how many it
-- moved; 0 at once when another fold or build is running. One statement, so
-- the deltas it deletes are exactly the ones it adds.
CREATE FUNCTION fold_transaction_totals() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    moved bigint;
BEGIN
    IF NOT pg_try_advisory_xact_lock(20261123, transaction_totals_lock_key()) THEN
        RETURN 0;
    END IF;
    WITH moved AS (
        DELETE FROM transaction_totals_delta RETURNING *
    ), hourly AS (
        SELECT collab_id, hour, merchant_id, status, transaction_type, currency, payment_method_type,
            sum(n) AS n, sum(amount) AS amount
        FROM moved GROUP BY 1, 2, 3, 4, 5, 6, 7
    ), up_hourly AS (
        INSERT INTO transaction_totals_hourly AS t
        SELECT * FROM hourly WHERE n <> 0 OR amount <> 0
        ON CONFLICT (collab_id, hour, merchant_id, status, transaction_type, currency, payment_method_type)
        DO UPDATE SET n = t.n + EXCLUDED.n, amount = t.amount + EXCLUDED.amount
    ), up_daily AS (
        INSERT INTO transaction_totals_daily AS t
        SELECT collab_id, date_trunc('day', hour, 'UTC'), merchant_id, status, transaction_type, currency,
            payment_method_type, sum(n), sum(amount)
        FROM hourly GROUP BY 1, 2, 3, 4, 5, 6, 7
        HAVING sum(n) <> 0 OR sum(amount) <> 0
        ON CONFLICT (collab_id, day, merchant_id, status, transaction_type, currency, payment_method_type)
        DO UPDATE SET n = t.n + EXCLUDED.n, amount = t.amount + EXCLUDED.amount
    )
    SELECT count(*) INTO moved FROM moved;
    -- A key whose count is zero holds no transaction (and so no amount).
    DELETE FROM transaction_totals_hourly WHERE n = 0;
    DELETE FROM transaction_totals_daily WHERE n = 0;
    RETURN moved;
END $$;

-- Recomputes the rollups from the transactions and returns the number of
-- transactions counted (NULL when only_unbuilt and they were built already,
-- e.g. by another replica while this one waited for the lock). Writers are
-- not blocked: the one statement that reads the transactions also deletes
-- exactly the deltas its snapshot sees, and later deltas stay for the fold.
CREATE FUNCTION build_transaction_totals(only_unbuilt boolean DEFAULT false) RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT SET work_mem = '256MB' AS $$
DECLARE
    counted bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(20261123, transaction_totals_lock_key());
    IF only_unbuilt AND EXISTS (SELECT 1 FROM transaction_totals_state WHERE built_at IS NOT NULL) THEN
        RETURN NULL;
    END IF;
    DELETE FROM transaction_totals_hourly;
    DELETE FROM transaction_totals_daily;
    -- Written in time order, as the fold appends them later: a range reads
    -- neighbouring pages.
    WITH gone AS (
        DELETE FROM transaction_totals_delta
    ), hourly AS (
        INSERT INTO transaction_totals_hourly
        SELECT collab_id, date_trunc('hour', created_at, 'UTC'), merchant_id, status, transaction_type, currency,
            payment_method_type, count(*), sum(amount)
        FROM transactions GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 2, 1
        RETURNING *
    ), daily AS (
        INSERT INTO transaction_totals_daily
        SELECT collab_id, date_trunc('day', hour, 'UTC'), merchant_id, status, transaction_type, currency,
            payment_method_type, sum(n), sum(amount)
        FROM hourly GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 2, 1
    )
    SELECT coalesce(sum(n), 0) INTO counted FROM hourly;
    UPDATE transaction_totals_state SET built_at = now();
    RETURN counted;
END $$;
