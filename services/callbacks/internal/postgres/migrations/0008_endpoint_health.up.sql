-- Endpoint health (issue 30, docs/contracts-callbacks.md "Endpoint health").
-- A callback URL's circuit breaker; a URL that never failed has no row
-- (closed). state: closed, open (no attempt before retry_at), half_open (one
-- probe under a lease until retry_at) or disabled (disabled automatically).
CREATE TABLE url_breakers (
    callback_url_id bigint PRIMARY KEY,
    state text NOT NULL DEFAULT 'closed' CHECK (state IN ('closed', 'open', 'half_open', 'disabled')),
    consecutive_failures integer NOT NULL DEFAULT 0,
    -- The first failed attempt after the last success (null when the last
    -- attempt succeeded): every attempt since has failed.
    failing_since timestamptz,
    cooldown_ms bigint NOT NULL DEFAULT 0,
    retry_at timestamptz,
    last_error text NOT NULL DEFAULT '',
    updated_at timestamptz NOT NULL
);

-- Breakers that hold deliveries back; every replica reads them.
CREATE INDEX url_breakers_blocking_idx ON url_breakers (callback_url_id) WHERE state <> 'closed';

ALTER TABLE callback_urls
    ADD COLUMN disabled_reason text,
    ADD COLUMN disabled_at timestamptz;

-- Attempts by callback URL and time, for the 24 h health of each URL (an
-- index-only scan: status and duration ride along). Attempts made before
-- this migration have neither.
ALTER TABLE attempts
    ADD COLUMN callback_url_id bigint,
    ADD COLUMN duration_ms integer;
CREATE INDEX attempts_url_time_idx ON attempts (callback_url_id, created_at) INCLUDE (status, duration_ms)
    WHERE callback_url_id IS NOT NULL;

-- A URL's pending deliveries: the probe of a half-open breaker, deferring
-- them while it is open and making them due when it closes.
CREATE INDEX deliveries_pending_url_idx ON deliveries (callback_url_id, next_attempt_at) WHERE status = 'pending';
