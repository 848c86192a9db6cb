-- A signing key is published in the JWKS while retired_at is NULL, and signs only once
-- activated_at is set: the live key activated last signs. A key added ahead of a rotation
-- ("auth signing-keys add") has none yet, so every verifier learns it before it signs
-- (docs/operations.md, "Rotate keys"). Every key so far has signed since it was made.
SET lock_timeout = '5s';
ALTER TABLE signing_keys ADD COLUMN activated_at timestamptz;
UPDATE signing_keys SET activated_at = created_at;
