DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['merchants', 'merchant_api_secrets', 'providers', 'provider_connections', 'pay_types',
        'provider_pay_types', 'collabs', 'collab_pay_types', 'fees', 'validation_endpoints', 'maintenance']
    LOOP
        EXECUTE format('DROP TRIGGER %I ON %I', t || '_config_version', t);
        EXECUTE format('DROP TRIGGER %I ON %I', t || '_config_version_truncate', t);
    END LOOP;
END $$;
DROP FUNCTION batch_assert(boolean, text);
DROP FUNCTION config_version_bump();
DROP TABLE config_version;
