-- An older release signs with the newest live key: retire the keys that were added but
-- never activated, so that it does not sign with one the verifiers may not know.
UPDATE signing_keys SET retired_at = now() WHERE activated_at IS NULL AND retired_at IS NULL;
ALTER TABLE signing_keys DROP COLUMN activated_at;
