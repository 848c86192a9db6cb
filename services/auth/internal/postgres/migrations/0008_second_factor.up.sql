-- Issue 27: the second factor (a TOTP key per user, its recovery codes and
-- the challenges of sign-ins waiting for a code) and the auth settings
-- (require a second factor, session idle timeout and lifetime). A user's
-- rows die with the user.

-- One TOTP key per user: pending (confirmed_at NULL) from the start of an
-- enrolment until its first code, then enrolled. The secret is sealed with
-- the service's keyring (key_id names the key), the user id as additional
-- data. last_step is the 30-second step of the last code accepted: a code
-- is accepted only for a later step, so none is used twice.
CREATE TABLE user_totp (
    user_id       bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    key_id        text        NOT NULL,
    secret_sealed bytea       NOT NULL,
    created_at    timestamptz NOT NULL,
    confirmed_at  timestamptz,
    last_step     bigint      NOT NULL DEFAULT 0
);

-- Recovery codes, stored as SHA-256 of the user id and the normalized
-- code; each is spent by its first use.
CREATE TABLE user_recovery_codes (
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash  bytea       NOT NULL,
    created_at timestamptz NOT NULL,
    used_at    timestamptz,
    PRIMARY KEY (user_id, code_hash)
);

-- A password sign-in that needs a second step: the SHA-256 of the opaque
-- challenge handed to the client, single use, short-lived. The session
-- cleanup purges expired ones.
CREATE TABLE second_factor_challenges (
    challenge_hash bytea PRIMARY KEY,
    user_id        bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    step           text        NOT NULL CHECK (step IN ('code', 'enrol')),
    created_at     timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    used_at        timestamptz,
    wrong_codes    integer     NOT NULL DEFAULT 0
);
CREATE INDEX second_factor_challenges_expires_idx ON second_factor_challenges (expires_at);

-- The auth settings: one row, absent until an admin first changes them
-- (the service's defaults apply until then).
CREATE TABLE auth_settings (
    id                           smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    require_second_factor        text        NOT NULL CHECK (require_second_factor IN ('off', 'everyone', 'admin_wide')),
    session_idle_timeout_seconds integer     NOT NULL CHECK (session_idle_timeout_seconds > 0),
    session_max_lifetime_seconds integer     NOT NULL CHECK (session_max_lifetime_seconds >= session_idle_timeout_seconds),
    updated_at                   timestamptz NOT NULL
);
