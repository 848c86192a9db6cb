-- Provider credentials join the configuration the payment path keeps in
-- memory (issue 31): a change to collab_credentials bumps config_version as
-- a change to any other configuration table does (migration 0011), so the
-- gateway's ConfigCache can serve a payment's credentials from memory with
-- the same freshness (a payment acts on every change committed before it
-- started) instead of a read per payment.
CREATE CONSTRAINT TRIGGER collab_credentials_config_version AFTER INSERT OR UPDATE OR DELETE ON collab_credentials
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION config_version_bump();
CREATE TRIGGER collab_credentials_config_version_truncate AFTER TRUNCATE ON collab_credentials
    FOR EACH STATEMENT EXECUTE FUNCTION config_version_bump();
