-- Provider credentials per collab (issue 17, docs/contracts-credentials.md):
-- the collab's whole key/value object as JSON, sealed with AES-256-GCM
-- (nonce || ciphertext || tag) with the collab bound in as associated data,
-- under the key named key_id. One row per collab; a write replaces it and
-- seals it under the current key, and the rotation command re-seals rows
-- still under an older key (found by key_id, hence the index).
CREATE TABLE collab_credentials (
    collab_id integer PRIMARY KEY REFERENCES collabs (id) ON DELETE CASCADE,
    key_id text NOT NULL CHECK (key_id ~ '^[A-Za-z0-9_.-]{1,64}$'),
    sealed bytea NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    updated_by text NOT NULL
);

CREATE INDEX collab_credentials_key_id_idx ON collab_credentials (key_id, collab_id);
