-- The outbox of the aggregator's own events (its jobs' run reports), published by
-- the aggregator.outbox-relay job: bus.OutboxDDL verbatim (a test checks it).
CREATE TABLE outbox (
    id uuid PRIMARY KEY,
    subject text NOT NULL,
    payload bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    published_at timestamptz
);

CREATE INDEX outbox_unpublished_idx ON outbox (created_at, id) WHERE published_at IS NULL;
