-- Passkeys (WebAuthn credentials), the random user handle each user presents
-- to authenticators instead of the numeric id, and the single-use challenges
-- of registration and sign-in ceremonies. A user's rows die with the user.

CREATE TABLE webauthn_user_handles (
    user_id bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    handle  bytea  NOT NULL UNIQUE CHECK (octet_length(handle) BETWEEN 16 AND 64)
);

CREATE TABLE webauthn_credentials (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id          bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    credential_id    bytea       NOT NULL UNIQUE,
    public_key       bytea       NOT NULL,
    attestation_type text        NOT NULL DEFAULT '',
    attestation_fmt  text        NOT NULL DEFAULT '',
    aaguid           bytea,
    -- The authenticator's signature counter (an unsigned 32-bit value).
    sign_count       bigint      NOT NULL DEFAULT 0 CHECK (sign_count BETWEEN 0 AND 4294967295),
    transports       text[]      NOT NULL DEFAULT '{}',
    backup_eligible  boolean     NOT NULL DEFAULT false,
    backup_state     boolean     NOT NULL DEFAULT false,
    user_verified    boolean     NOT NULL DEFAULT false,
    user_present     boolean     NOT NULL DEFAULT false,
    description      text        NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    last_used_at     timestamptz
);
CREATE INDEX webauthn_credentials_user_idx ON webauthn_credentials (user_id, created_at, id);

-- A challenge is consumed (deleted) by the first answer that names it;
-- expired ones are refused and purged.
CREATE TABLE webauthn_challenges (
    challenge    text PRIMARY KEY,
    kind         text        NOT NULL CHECK (kind IN ('register', 'login')),
    user_id      bigint      REFERENCES users (id) ON DELETE CASCADE,
    session_data jsonb       NOT NULL,
    display_name text        NOT NULL DEFAULT '',
    expires_at   timestamptz NOT NULL,
    CHECK ((kind = 'register') = (user_id IS NOT NULL))
);
CREATE INDEX webauthn_challenges_expires_idx ON webauthn_challenges (expires_at);
