-- The auth service's schema: users, roles, permissions, merchant links,
-- IP allow-lists, sessions, refresh tokens, signing keys and the outbox.
-- Written without schema qualifiers: search_path selects the schema.

CREATE TABLE roles (
    id   smallint PRIMARY KEY,
    name text NOT NULL UNIQUE
);

CREATE TABLE permissions (
    id   smallint PRIMARY KEY,
    name text NOT NULL UNIQUE
);

CREATE TABLE role_permissions (
    role_id       smallint NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
    permission_id smallint NOT NULL REFERENCES permissions (id) ON DELETE CASCADE,
    PRIMARY KEY (role_id, permission_id)
);

CREATE TABLE users (
    id                    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    username              text        NOT NULL CHECK (username <> ''),
    password_hash         text        NOT NULL,
    is_temporary_password boolean     NOT NULL DEFAULT false,
    is_ip_restricted      boolean     NOT NULL DEFAULT false,
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now(),
    password_changed_at   timestamptz NOT NULL DEFAULT now()
);
-- Usernames are unique regardless of case, and looked up that way.
CREATE UNIQUE INDEX users_username_key ON users (lower(username));

CREATE TABLE user_roles (
    user_id bigint   NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role_id smallint NOT NULL REFERENCES roles (id),
    PRIMARY KEY (user_id, role_id)
);

-- Merchants belong to the gateway service; only their ids are kept here.
CREATE TABLE user_merchants (
    user_id     bigint  NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    merchant_id integer NOT NULL,
    PRIMARY KEY (user_id, merchant_id)
);
CREATE INDEX user_merchants_merchant_idx ON user_merchants (merchant_id);

-- Inclusive address ranges an IP-restricted user may sign in from.
CREATE TABLE user_allowed_ips (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name       text        NOT NULL,
    from_ip    inet        NOT NULL,
    to_ip      inet        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CHECK (family(from_ip) = family(to_ip) AND from_ip <= to_ip)
);
CREATE INDEX user_allowed_ips_user_idx ON user_allowed_ips (user_id);

CREATE TABLE sessions (
    id                 uuid PRIMARY KEY,
    user_id            bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    ip                 text        NOT NULL,
    user_agent         text        NOT NULL,
    created_at         timestamptz NOT NULL,
    last_seen_at       timestamptz NOT NULL,
    refresh_expires_at timestamptz NOT NULL,
    revoked_at         timestamptz,
    revoked_reason     text
);
CREATE INDEX sessions_active_user_idx ON sessions (user_id, created_at DESC) WHERE revoked_at IS NULL;

-- Refresh tokens are stored as SHA-256 hashes; the plaintext never is.
CREATE TABLE refresh_tokens (
    token_hash bytea PRIMARY KEY,
    session_id uuid        NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX refresh_tokens_session_idx ON refresh_tokens (session_id);

-- Ed25519 keys that sign access tokens. Kept here so that every replica
-- signs with the same key and the JWKS lists them all.
CREATE TABLE signing_keys (
    kid         text PRIMARY KEY,
    private_key bytea       NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    retired_at  timestamptz
);

-- bus.OutboxDDL, verbatim (a test checks it).
CREATE TABLE outbox (
    id uuid PRIMARY KEY,
    subject text NOT NULL,
    payload bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    published_at timestamptz
);

CREATE INDEX outbox_unpublished_idx ON outbox (created_at, id) WHERE published_at IS NULL;

INSERT INTO roles (id, name) VALUES
    (1, 'Admin'),
    (2, 'Support'),
    (3, 'Merchant'),
    (4, 'Merchant Admin'),
    (5, 'Merchant Finance Manager'),
    (6, 'Merchant Support');

INSERT INTO permissions (id, name) VALUES
    (1, 'Dashboard Access'),
    (2, 'Statistics Access'),
    (3, 'Get Transactions'),
    (4, 'Create Transactions'),
    (5, 'Edit Transactions'),
    (6, 'View Logs'),
    (7, 'Get Providers'),
    (8, 'GoVip Access'),
    (9, 'QRPh Access'),
    (10, 'FbPay Access'),
    (11, 'HumPas Access'),
    (12, 'Crypto Manager Access'),
    (13, 'Crypto Sender Access'),
    (14, 'RollingPay Access'),
    (15, 'Allow IP'),
    (16, 'Credentials Access'),
    (17, 'Balance Access'),
    (18, 'Settings Access'),
    (19, 'Jobs Access'),
    (20, 'Edit Collab'),
    (21, 'View Frauds'),
    (22, 'Edit Frauds'),
    (23, 'Cancel Callbacks'),
    (24, 'Files Access'),
    (25, 'View Recent Actions'),
    (26, 'View Fees'),
    (27, 'Edit Fees'),
    (28, 'Edit Maintenance Mode'),
    (29, 'Add Users'),
    (30, 'Edit User');

-- Admin holds every permission.
INSERT INTO role_permissions (role_id, permission_id)
SELECT 1, id FROM permissions;

INSERT INTO role_permissions (role_id, permission_id)
SELECT r.id, p.id
FROM (VALUES
    ('Support', ARRAY['Dashboard Access', 'Statistics Access', 'Get Transactions', 'View Logs',
        'Get Providers', 'Balance Access', 'Files Access', 'View Frauds', 'View Recent Actions',
        'View Fees', 'Jobs Access']),
    ('Merchant', ARRAY['Dashboard Access', 'Statistics Access', 'Get Transactions', 'Get Providers',
        'Balance Access', 'Files Access', 'View Recent Actions', 'View Fees']),
    ('Merchant Admin', ARRAY['Dashboard Access', 'Statistics Access', 'Get Transactions',
        'Get Providers', 'Balance Access', 'Files Access', 'View Recent Actions', 'View Fees',
        'Edit Transactions', 'View Logs', 'Edit Collab', 'Credentials Access', 'View Frauds',
        'Cancel Callbacks', 'Allow IP', 'Add Users', 'Edit User']),
    ('Merchant Finance Manager', ARRAY['Dashboard Access', 'Statistics Access', 'Get Transactions',
        'Balance Access', 'Files Access', 'View Fees']),
    ('Merchant Support', ARRAY['Get Transactions', 'View Logs', 'Get Providers'])
) AS g (role_name, permission_names)
JOIN roles r ON r.name = g.role_name
JOIN permissions p ON p.name = ANY (g.permission_names);
