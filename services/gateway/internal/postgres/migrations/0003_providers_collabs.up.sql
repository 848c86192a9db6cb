-- Providers, the pay types they offer, and the collaborations (collabs) of
-- merchants with providers: settings, channel switches and limits.

CREATE TABLE providers (
    id integer PRIMARY KEY,
    name text NOT NULL UNIQUE,
    is_enabled boolean NOT NULL DEFAULT true,
    supports_cash_in boolean NOT NULL,
    supports_cash_out boolean NOT NULL,
    supports_polling boolean NOT NULL DEFAULT false,
    supports_balance boolean NOT NULL DEFAULT false,
    path_segment text NOT NULL UNIQUE CHECK (path_segment ~ '^[a-z0-9][a-z0-9-]*$'),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE pay_types (
    id integer PRIMARY KEY,
    name text NOT NULL,
    code text NOT NULL UNIQUE
);

-- What each provider offers of each pay type.
CREATE TABLE provider_pay_types (
    provider_id integer NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
    pay_type_id integer NOT NULL REFERENCES pay_types (id),
    cash_in boolean NOT NULL,
    cash_out boolean NOT NULL,
    PRIMARY KEY (provider_id, pay_type_id),
    CHECK (cash_in OR cash_out)
);

CREATE INDEX provider_pay_types_pay_type_idx ON provider_pay_types (pay_type_id);

CREATE TABLE collabs (
    id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id),
    provider_id integer NOT NULL REFERENCES providers (id),
    is_enabled boolean NOT NULL,
    is_cash_in_enabled boolean NOT NULL,
    is_cash_out_enabled boolean NOT NULL,
    validate_cash_in boolean NOT NULL,
    validate_cash_out boolean NOT NULL,
    is_merchant_callback_enabled boolean NOT NULL,
    is_crediting_to_clients_enabled boolean NOT NULL,
    is_withdraw_from_clients_enabled boolean NOT NULL,
    expand_by_pay_type boolean NOT NULL,
    available_only_on_direct_access boolean NOT NULL,
    position integer CHECK (position >= 0),
    mode smallint NOT NULL DEFAULT 1 CHECK (mode IN (1, 2, 3)),
    minimal_deposit_amount numeric(20, 2) CHECK (minimal_deposit_amount >= 0),
    maximal_deposit_amount numeric(20, 2) CHECK (maximal_deposit_amount >= 0),
    minimal_withdraw_amount numeric(20, 2) CHECK (minimal_withdraw_amount >= 0),
    maximal_withdraw_amount numeric(20, 2) CHECK (maximal_withdraw_amount >= 0),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT collabs_merchant_provider_key UNIQUE (merchant_id, provider_id),
    -- The target of collab_pay_types' composite key, which ties a collab's
    -- pay types to its provider's offer.
    CONSTRAINT collabs_id_provider_key UNIQUE (id, provider_id),
    CONSTRAINT collabs_deposit_range_check CHECK (minimal_deposit_amount <= maximal_deposit_amount),
    CONSTRAINT collabs_withdraw_range_check CHECK (minimal_withdraw_amount <= maximal_withdraw_amount)
);

CREATE INDEX collabs_provider_idx ON collabs (provider_id);

CREATE TABLE collab_pay_types (
    id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    collab_id integer NOT NULL,
    provider_id integer NOT NULL,
    pay_type_id integer NOT NULL,
    is_cash_in_enabled boolean NOT NULL,
    is_cash_out_enabled boolean NOT NULL,
    minimal_deposit_amount numeric(20, 2) CHECK (minimal_deposit_amount >= 0),
    maximal_deposit_amount numeric(20, 2) CHECK (maximal_deposit_amount >= 0),
    minimal_withdraw_amount numeric(20, 2) CHECK (minimal_withdraw_amount >= 0),
    maximal_withdraw_amount numeric(20, 2) CHECK (maximal_withdraw_amount >= 0),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT collab_pay_types_collab_pay_type_key UNIQUE (collab_id, pay_type_id),
    FOREIGN KEY (collab_id, provider_id) REFERENCES collabs (id, provider_id) ON DELETE CASCADE,
    FOREIGN KEY (provider_id, pay_type_id) REFERENCES provider_pay_types (provider_id, pay_type_id),
    CONSTRAINT collab_pay_types_deposit_range_check CHECK (minimal_deposit_amount <= maximal_deposit_amount),
    CONSTRAINT collab_pay_types_withdraw_range_check CHECK (minimal_withdraw_amount <= maximal_withdraw_amount)
);

CREATE INDEX collab_pay_types_provider_pay_type_idx ON collab_pay_types (provider_id, pay_type_id);

-- The gateway-wide maintenance switch: exactly one row.
CREATE TABLE maintenance (
    id boolean PRIMARY KEY DEFAULT true CHECK (id),
    is_enabled boolean NOT NULL DEFAULT false,
    changed_by bigint,
    changed_at timestamptz
);

INSERT INTO maintenance (id, is_enabled) VALUES (true, false);
