-- Fees as the console edits them (issue 17, docs/contracts-fees.md).
--
-- Fee type 0 (None) is a fee that charges nothing (spec 02 §4): a specific
-- rule that wins over a broader one and waives its fee.
ALTER TABLE fees DROP CONSTRAINT fees_fee_type_check;
ALTER TABLE fees ADD CONSTRAINT fees_fee_type_check CHECK (fee_type IN (0, 1, 2));
ALTER TABLE fees ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();

-- The Fees page of one collab, and a merchant user's list (its collabs'
-- fees and the global ones, NULLs included), in id order; also the
-- candidates of a conflict check and of the preview by collab.
CREATE INDEX fees_collab_idx ON fees (collab_id, id);
-- The list filtered by currency, by id.
CREATE INDEX fees_currency_from_idx ON fees (currency_from, id);

-- The preview's index on transactions is migration 0022's (built
-- concurrently).

-- How many fees each collab has (collab_id 0: the global fees), kept by
-- statement triggers in the writing transaction, so that the list's total
-- without other filters than the scope or a collab is a sum of a few rows
-- instead of a count of up to every fee. Rows are updated in collab order
-- (no deadlock between two statements moving fees across collabs).
CREATE TABLE fee_counts (
    collab_id integer PRIMARY KEY,
    n bigint NOT NULL
);
INSERT INTO fee_counts SELECT COALESCE(collab_id, 0), count(*) FROM fees GROUP BY 1;

CREATE FUNCTION fee_counts_inserted() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO fee_counts AS c (collab_id, n)
    SELECT COALESCE(collab_id, 0), count(*) FROM added GROUP BY 1 ORDER BY 1
    ON CONFLICT (collab_id) DO UPDATE SET n = c.n + EXCLUDED.n;
    RETURN NULL;
END $$;

CREATE FUNCTION fee_counts_deleted() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO fee_counts AS c (collab_id, n)
    SELECT COALESCE(collab_id, 0), -count(*) FROM removed GROUP BY 1 ORDER BY 1
    ON CONFLICT (collab_id) DO UPDATE SET n = c.n + EXCLUDED.n;
    RETURN NULL;
END $$;

CREATE FUNCTION fee_counts_updated() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO fee_counts AS c (collab_id, n)
    SELECT k, sum(d) FROM (
        SELECT COALESCE(collab_id, 0) AS k, 1 AS d FROM added
        UNION ALL SELECT COALESCE(collab_id, 0), -1 FROM removed) m
    GROUP BY k HAVING sum(d) <> 0 ORDER BY k
    ON CONFLICT (collab_id) DO UPDATE SET n = c.n + EXCLUDED.n;
    RETURN NULL;
END $$;

CREATE FUNCTION fee_counts_truncated() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    DELETE FROM fee_counts;
    RETURN NULL;
END $$;

CREATE TRIGGER fees_counts_insert AFTER INSERT ON fees
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION fee_counts_inserted();
CREATE TRIGGER fees_counts_delete AFTER DELETE ON fees
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION fee_counts_deleted();
CREATE TRIGGER fees_counts_update AFTER UPDATE ON fees
    REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION fee_counts_updated();
CREATE TRIGGER fees_counts_truncate AFTER TRUNCATE ON fees
    FOR EACH STATEMENT EXECUTE FUNCTION fee_counts_truncated();
