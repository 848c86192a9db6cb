-- Issue 28: action-bound confirmation (step-up) and four-eyes approval
-- (docs/contracts-approvals.md).

-- A confirmation begun for one described change: the canonical description
-- the user signs (built by auth), its digest, a 32-byte server nonce (base64url)
-- and the expiry that enter the WebAuthn challenge. The call's request bytes
-- are sealed with the service's keyring (request_key_id names the key, the
-- confirmation id is the additional data). used_at is set once, by the finish
-- that answered it (compare-and-set).
CREATE TABLE confirmations (
    id                  uuid PRIMARY KEY,
    user_id             bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    action              text        NOT NULL,
    method              text        NOT NULL,
    canonical           text        NOT NULL,
    digest              text        NOT NULL,
    nonce               text        NOT NULL,
    kind                text        NOT NULL CHECK (kind IN ('webauthn', 'totp', 'none')),
    request_key_id      text        NOT NULL,
    request_sealed      bytea       NOT NULL,
    reason              text        NOT NULL DEFAULT '',
    approval_policy_id  integer,
    approver_permission text        NOT NULL DEFAULT '',
    proof               jsonb,
    created_at          timestamptz NOT NULL,
    expires_at          timestamptz NOT NULL,
    used_at             timestamptz
);
CREATE INDEX confirmations_expires_idx ON confirmations (expires_at);

-- A change waiting for (or past) another user's approval. "approving" is the
-- short state between the approver's compare-and-set and the owning
-- service's answer.
CREATE TABLE approval_requests (
    id                    bigserial PRIMARY KEY,
    confirmation_id       uuid        NOT NULL UNIQUE,
    requested_by          bigint      NOT NULL,
    requested_by_username text        NOT NULL,
    action                text        NOT NULL,
    method                text        NOT NULL,
    canonical             text        NOT NULL,
    digest                text        NOT NULL,
    request_key_id        text        NOT NULL,
    request_sealed        bytea       NOT NULL,
    reason                text        NOT NULL DEFAULT '',
    requester_proof       jsonb       NOT NULL,
    approver_permission   text        NOT NULL,
    policy_id             integer,
    status                text        NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'approving', 'approved', 'rejected', 'expired', 'failed')),
    decided_by            bigint,
    decided_by_username   text        NOT NULL DEFAULT '',
    decided_at            timestamptz,
    outcome               text        NOT NULL DEFAULT '',
    approver_proof        jsonb,
    expires_at            timestamptz NOT NULL,
    created_at            timestamptz NOT NULL
);
CREATE INDEX approval_requests_status_idx ON approval_requests (status, id DESC);
CREATE INDEX approval_requests_requester_idx ON approval_requests (requested_by, id DESC);

-- Four-eyes policies: the action, when the threshold is met (the observed
-- amount at least min_amount in currency, or more than min_count items),
-- needs approval by one other user holding approver_permission.
CREATE TABLE approval_policies (
    id                  serial PRIMARY KEY,
    action              text        NOT NULL,
    approver_permission text        NOT NULL,
    min_amount          numeric CHECK (min_amount >= 0),
    currency            text        NOT NULL DEFAULT '',
    min_count           integer     NOT NULL DEFAULT 0 CHECK (min_count >= 0),
    created_at          timestamptz NOT NULL,
    created_by          bigint
);

-- The step-up setting: one row at most; without it, every action of the
-- catalogue for admin-wide users (the default follows the catalogue).
CREATE TABLE step_up_settings (
    id         boolean PRIMARY KEY DEFAULT true CHECK (id),
    scope      text        NOT NULL CHECK (scope IN ('admin_wide', 'everyone', 'none')),
    actions    text[]      NOT NULL,
    updated_at timestamptz NOT NULL,
    updated_by bigint
);

-- The server's HMAC key of TOTP proofs, sealed with the keyring (the name is
-- the additional data).
CREATE TABLE proof_keys (
    name       text PRIMARY KEY,
    key_id     text        NOT NULL,
    sealed     bytea       NOT NULL,
    created_at timestamptz NOT NULL
);

-- Confirmation tokens auth itself accepted (approving a request): each once.
CREATE TABLE used_confirmations (
    jti     text PRIMARY KEY,
    used_at timestamptz NOT NULL
);
