-- Monthly partitions of transactions (docs/partitioning.md), step 5 of 5: the switch. One
-- transaction of catalog changes, no row copied: the unpartitioned table becomes
-- transactions_legacy, the partition of everything created before
-- transaction_partitioning.legacy_until (0025's validated CHECK spares ATTACH its scan, and its
-- indexes are adopted by the partitioned table's identical ones), or is dropped when empty (a new
-- database). Monthly partitions follow from there, created ahead by ensure_transaction_partitions
-- (the job gateway.transaction-partitions, hourly) and detachable for archiving; a default
-- partition takes any row outside them (rows backdated by an import, or a month the job has not
-- reached) instead of failing the payment.
--
-- It holds the old table's ACCESS EXCLUSIVE lock for the few milliseconds of the switch. Behind a
-- long query it gives up after lock_timeout rather than queue every writer behind it: the file
-- rolls back whole and the version is left dirty, for an operator to set back to 27 and start
-- again in a quieter moment (docs/migrations.md, "Killed mid-migration").
SET lock_timeout = '5s';

LOCK TABLE transactions IN ACCESS EXCLUSIVE MODE;

-- What references a transaction references its key from now on (they stay enforced for new rows
-- at once; 0029 validates the existing ones without blocking writers). Checked at commit: a key is
-- written by a statement trigger at the end of its transaction's INSERT, after the row triggers
-- that check a journal entry written by the same statement (a data-modifying WITH).
ALTER TABLE transaction_logs DROP CONSTRAINT transaction_logs_transaction_id_fkey;
ALTER TABLE validation_results DROP CONSTRAINT validation_results_transaction_id_fkey;
ALTER TABLE fraud_transactions DROP CONSTRAINT fraud_transactions_transaction_id_fkey;
ALTER TABLE transaction_logs ADD CONSTRAINT transaction_logs_transaction_id_fkey
    FOREIGN KEY (transaction_id) REFERENCES transaction_keys (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE validation_results ADD CONSTRAINT validation_results_transaction_id_fkey
    FOREIGN KEY (transaction_id) REFERENCES transaction_keys (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE fraud_transactions ADD CONSTRAINT fraud_transactions_transaction_id_fkey
    FOREIGN KEY (transaction_id) REFERENCES transaction_keys (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED NOT VALID;

-- The old table keeps its unique constraints on reference_id and (nonce, merchant_id) under their
-- names (rows it takes until legacy_until are checked there first, with the error the previous
-- release expects), and its other indexes are renamed out of the way of the partitioned table's.
ALTER TABLE transactions RENAME TO transactions_legacy;
ALTER TABLE transactions_legacy RENAME CONSTRAINT transactions_pkey TO transactions_legacy_pkey;
ALTER INDEX transactions_status_created_idx RENAME TO transactions_legacy_status_created_idx;
ALTER INDEX transactions_poll_idx RENAME TO transactions_legacy_poll_idx;
ALTER INDEX transactions_collab_created_idx RENAME TO transactions_legacy_collab_created_idx;
ALTER INDEX transactions_merchant_created_idx RENAME TO transactions_legacy_merchant_created_idx;
ALTER INDEX transactions_created_idx RENAME TO transactions_legacy_created_idx;
ALTER INDEX transactions_ptid_idx RENAME TO transactions_legacy_ptid_idx;
ALTER INDEX transactions_merchant_cid_idx RENAME TO transactions_legacy_merchant_cid_idx;
ALTER INDEX transactions_pm_value_idx RENAME TO transactions_legacy_pm_value_idx;
ALTER INDEX transactions_payment_ip_idx RENAME TO transactions_legacy_payment_ip_idx;
ALTER INDEX transactions_not_confirmed_idx RENAME TO transactions_legacy_not_confirmed_idx;
ALTER INDEX transactions_amount_idx RENAME TO transactions_legacy_amount_idx;
ALTER INDEX transactions_fee_preview_idx RENAME TO transactions_legacy_fee_preview_idx;
-- 0024's index backs the constraint ATTACH looks for to stand in for the partition's primary key.
ALTER TABLE transactions_legacy ADD CONSTRAINT transactions_legacy_id_created_key
    UNIQUE USING INDEX transactions_id_created_key;
-- Its triggers become the partitioned table's (a row trigger of the parent is cloned onto it).
DROP TRIGGER transactions_totals_insert ON transactions_legacy;
DROP TRIGGER transactions_totals_delete ON transactions_legacy;
DROP TRIGGER transactions_totals_update ON transactions_legacy;
DROP TRIGGER transactions_totals_truncate ON transactions_legacy;
DROP TRIGGER transactions_keys_insert ON transactions_legacy;
DROP TRIGGER transactions_keys_delete ON transactions_legacy;

-- The same columns, defaults and checks (a partition's checks must have its parent's names); a new identity sequence that goes on from the old one.
CREATE TABLE transactions (LIKE transactions_legacy INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING CONSTRAINTS)
    PARTITION BY RANGE (created_at);
ALTER TABLE transactions DROP CONSTRAINT transactions_legacy_bound;
DO $$
DECLARE
    v bigint;
    called boolean;
BEGIN
    EXECUTE format('SELECT last_value, is_called FROM %s', pg_get_serial_sequence('transactions_legacy', 'id'))
        INTO v, called;
    PERFORM setval(pg_get_serial_sequence('transactions', 'id'), v, called);
END $$;
-- A partition takes its ids from the partitioned table's sequence.
ALTER TABLE transactions_legacy ALTER COLUMN id DROP IDENTITY;

ALTER TABLE transactions ADD CONSTRAINT transactions_pkey PRIMARY KEY (id, created_at);
ALTER TABLE transactions ADD CONSTRAINT transactions_merchant_id_fkey FOREIGN KEY (merchant_id) REFERENCES merchants (id);
ALTER TABLE transactions ADD CONSTRAINT transactions_collab_id_fkey FOREIGN KEY (collab_id) REFERENCES collabs (id);
ALTER TABLE transactions ADD CONSTRAINT transactions_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers (id);
ALTER TABLE transactions ADD CONSTRAINT transactions_pay_type_id_fkey FOREIGN KEY (pay_type_id) REFERENCES pay_types (id);

-- The list's, the polling's, the recovery's, the amount filter's and the fee preview's indexes,
-- as 0005-0022 defined them (ATTACH adopts the old table's, which are the same). No index on
-- reference_id or nonce: transaction_keys finds those.
CREATE INDEX transactions_status_created_idx ON transactions (status, created_at DESC, id DESC);
CREATE INDEX transactions_poll_idx ON transactions (next_poll_at) WHERE next_poll_at IS NOT NULL;
CREATE INDEX transactions_collab_created_idx ON transactions (collab_id, created_at DESC, id DESC)
    INCLUDE (status, transaction_type, amount, currency, merchant_id);
CREATE INDEX transactions_merchant_created_idx ON transactions (merchant_id, created_at DESC, id DESC)
    INCLUDE (status, transaction_type, amount, currency, collab_id);
CREATE INDEX transactions_created_idx ON transactions (created_at DESC, id DESC)
    INCLUDE (status, transaction_type, amount, currency, merchant_id, collab_id);
CREATE INDEX transactions_ptid_idx ON transactions (provider_transaction_id, created_at DESC)
    WHERE provider_transaction_id IS NOT NULL;
CREATE INDEX transactions_merchant_cid_idx ON transactions (merchant_client_id, created_at DESC)
    WHERE merchant_client_id <> '';
CREATE INDEX transactions_pm_value_idx ON transactions (payment_method_value, created_at DESC)
    WHERE payment_method_value <> '';
CREATE INDEX transactions_payment_ip_idx ON transactions (payment_ip_address, created_at DESC)
    WHERE payment_ip_address <> '';
CREATE INDEX transactions_not_confirmed_idx ON transactions (updated_at, id) WHERE status = 1;
CREATE INDEX transactions_amount_idx ON transactions (amount)
    INCLUDE (currency, status, transaction_type, created_at, id);
CREATE INDEX transactions_fee_preview_idx ON transactions (created_at)
    INCLUDE (collab_id, currency, transaction_type, pay_type_id, amount, applied_fee_amount);

-- 0010's rollup triggers and 0025's key triggers, on the partitioned table. Statement triggers
-- fire for statements on transactions (not on one partition named directly: write through
-- transactions).
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
CREATE TRIGGER transactions_keys_insert AFTER INSERT ON transactions
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION transaction_keys_inserted();
CREATE TRIGGER transactions_keys_delete AFTER DELETE ON transactions
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION transaction_keys_deleted();
CREATE TRIGGER transactions_keys_truncate AFTER TRUNCATE ON transactions
    FOR EACH STATEMENT EXECUTE FUNCTION transaction_keys_truncated();

CREATE TABLE transactions_default PARTITION OF transactions DEFAULT;

-- Creates the monthly partitions (UTC months) from since's month to upto's, skipping those that
-- exist and the months the legacy partition covers; returns how many it created. A month whose
-- rows already went to the default partition fails with Postgres's error naming the row: move
-- them out first (docs/partitioning.md).
CREATE FUNCTION ensure_transaction_partitions(upto timestamptz, since timestamptz DEFAULT now()) RETURNS integer
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    m timestamp := date_trunc('month', greatest(since, (SELECT coalesce(max(legacy_until), '-infinity')
        FROM transaction_partitioning WHERE EXISTS (
            SELECT 1 FROM pg_inherits i WHERE i.inhrelid = to_regclass('transactions_legacy')))) AT TIME ZONE 'UTC');
    last timestamp := date_trunc('month', upto AT TIME ZONE 'UTC');
    made integer := 0;
    part text;
BEGIN
    WHILE m <= last LOOP
        part := 'transactions_' || to_char(m, 'YYYY_MM');
        IF to_regclass(part) IS NULL THEN
            EXECUTE format('CREATE TABLE %I PARTITION OF transactions FOR VALUES FROM (%L) TO (%L)', part,
                m AT TIME ZONE 'UTC', (m + interval '1 month') AT TIME ZONE 'UTC');
            made := made + 1;
        END IF;
        m := m + interval '1 month';
    END LOOP;
    RETURN made;
END $$;

-- Subtracts a detached month from the rollups (the list's counts and totals), which a DETACH does
-- not touch: from and upto are the detached partition's bounds (whole UTC hours).
CREATE FUNCTION forget_transaction_totals(since timestamptz, upto timestamptz) RETURNS void
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(20261123, transaction_totals_lock_key());
    PERFORM fold_transaction_totals();
    DELETE FROM transaction_totals_hourly WHERE hour >= since AND hour < upto;
    DELETE FROM transaction_totals_daily WHERE day >= since AND day < upto;
END $$;

-- The old table: the partition of what came before legacy_until, or gone when it held nothing.
DO $$
DECLARE
    until timestamptz := (SELECT legacy_until FROM transaction_partitioning);
BEGIN
    IF EXISTS (SELECT 1 FROM transactions_legacy) THEN
        EXECUTE format('ALTER TABLE transactions ATTACH PARTITION transactions_legacy FOR VALUES FROM (MINVALUE) TO (%L)', until);
    ELSE
        DROP TABLE transactions_legacy;
    END IF;
END $$;

SELECT ensure_transaction_partitions(now() + interval '3 months');
