-- Which final statuses a callback URL receives (issue 30): null = every final
-- status; deliveries are made only for a matching status.
ALTER TABLE callback_urls ADD COLUMN final_statuses smallint[];

-- Payload retention (issue 30): a body is purged (emptied, purged_at set)
-- once it is older than PAYGATE_CALLBACK_PAYLOAD_RETENTION and none of its
-- deliveries is pending or failed (those may still be sent). Rows stored
-- before this migration count from the migration.
ALTER TABLE delivery_bodies
    ADD COLUMN created_at timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN purged_at timestamptz;
CREATE INDEX delivery_bodies_purge_idx ON delivery_bodies (created_at) WHERE purged_at IS NULL;

-- Signing-secret rotation with overlap (issue 30): the key a rotation
-- replaced still signs, beside the new one, until previous_until.
ALTER TABLE signing_secrets
    ADD COLUMN previous_sealed bytea,
    ADD COLUMN previous_until timestamptz;
