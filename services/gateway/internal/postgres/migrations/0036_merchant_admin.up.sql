-- Merchants managed from the console (issue 30): contact, status, and
-- several API secrets per merchant with overlapping validity.

-- A merchant's contact and status. A disabled merchant's payments are
-- refused; its collabs stay as they are and show the status.
ALTER TABLE merchants
    ADD COLUMN contact_name text NOT NULL DEFAULT '',
    ADD COLUMN contact_email text NOT NULL DEFAULT '',
    ADD COLUMN disabled boolean NOT NULL DEFAULT false,
    ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();

-- merchant_api_secrets had one secret per merchant (its primary key). It
-- now holds every secret a merchant has had: an id of its own, when it
-- stops being accepted (expires_at, NULL while it does not expire) and
-- whether it was revoked. The existing secrets keep their rows: they
-- become the merchants' first secrets, with no expiry. The sealing's
-- associated data stays the merchant (payment.MerchantSecretOwner), so
-- those rows open as before and the reseal job keeps working.
ALTER TABLE merchant_api_secrets DROP CONSTRAINT merchant_api_secrets_pkey;
ALTER TABLE merchant_api_secrets
    ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    ADD COLUMN expires_at timestamptz,
    ADD COLUMN revoked_at timestamptz,
    ADD COLUMN created_by text NOT NULL DEFAULT '';
CREATE INDEX merchant_api_secrets_merchant_id ON merchant_api_secrets (merchant_id);

-- When each secret last verified a signature, written at most once a
-- minute per secret by the gateway that saw it. Kept apart from
-- merchant_api_secrets so that recording a use does not move the
-- configuration version (migration 0011) and empty the gateways' caches.
CREATE TABLE merchant_api_secret_uses (
    secret_id bigint PRIMARY KEY REFERENCES merchant_api_secrets (id) ON DELETE CASCADE,
    last_used_at timestamptz NOT NULL
);
