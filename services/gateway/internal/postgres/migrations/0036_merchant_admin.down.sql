DROP TABLE IF EXISTS merchant_api_secret_uses;
-- Keep each merchant's newest secret, as the single secret it had.
DELETE FROM merchant_api_secrets s WHERE EXISTS (
    SELECT 1 FROM merchant_api_secrets n WHERE n.merchant_id = s.merchant_id AND n.id > s.id);
DROP INDEX IF EXISTS merchant_api_secrets_merchant_id;
ALTER TABLE merchant_api_secrets DROP COLUMN id, DROP COLUMN expires_at, DROP COLUMN revoked_at, DROP COLUMN created_by;
ALTER TABLE merchant_api_secrets ADD PRIMARY KEY (merchant_id);
ALTER TABLE merchants DROP COLUMN contact_name, DROP COLUMN contact_email, DROP COLUMN disabled, DROP COLUMN updated_at;
