-- A version of the configuration the payment path reads (merchants and their
-- API secrets, providers and their connections, pay types, collabs and their
-- pay types, fees, validation endpoints, maintenance), so that the gateway
-- can keep that configuration in memory and still act on every committed
-- change (issue 4, "Initialize throughput").
--
-- Every change to those tables moves config_version.version on, in the
-- transaction of the change and at its commit: a reader that sees version v
-- sees every change that moved the version to v. The gateway labels what it
-- caches with the version it read first, creates a transaction only while
-- that version is still the current one (the insert compares them), and reads
-- the version again before refusing a payment on cached configuration.
--
-- The triggers are deferred constraint triggers: the version row is locked
-- at commit only, after every other lock of the transaction, so two
-- configuration changes cannot deadlock on it, whatever tables they touch in
-- whatever order.
CREATE TABLE config_version (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    version bigint NOT NULL
);
INSERT INTO config_version (version) VALUES (1);

CREATE FUNCTION config_version_bump() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    UPDATE config_version SET version = version + 1;
    RETURN NULL;
END $$;

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['merchants', 'merchant_api_secrets', 'providers', 'provider_connections', 'pay_types',
        'provider_pay_types', 'collabs', 'collab_pay_types', 'fees', 'validation_endpoints', 'maintenance']
    LOOP
        EXECUTE format('CREATE CONSTRAINT TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %I
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION config_version_bump()',
            t || '_config_version', t);
        -- TRUNCATE has no row trigger; it is rare enough to bump at once.
        EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION config_version_bump()',
            t || '_config_version_truncate', t);
    END LOOP;
END $$;

-- Fails the statement (and so the implicit transaction of a pipelined batch
-- of the gateway's writes) unless ok: SQLSTATE PGB01 with what as message.
CREATE FUNCTION batch_assert(ok boolean, what text) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
    IF ok IS NOT TRUE THEN
        RAISE EXCEPTION USING ERRCODE = 'PGB01', MESSAGE = what;
    END IF;
    RETURN true;
END $$;
