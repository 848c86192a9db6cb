-- The activity log: one row per change made through the gateway. Rows keep
-- the names of what they concern as they were, and refer to merchants,
-- providers and collabs without foreign keys, so that the log outlives them.
-- Every read is bounded by a time range and a limit and walks one of the
-- three indexes newest first.
CREATE TABLE activity_log (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at timestamptz NOT NULL,
    user_id bigint,
    username text NOT NULL DEFAULT '',
    ip text NOT NULL DEFAULT '',
    user_agent text NOT NULL DEFAULT '',
    merchant_id integer,
    merchant_name text NOT NULL DEFAULT '',
    provider_id integer,
    provider_name text NOT NULL DEFAULT '',
    collab_id integer,
    pay_type_id integer,
    pay_type_name text NOT NULL DEFAULT '',
    pay_type_code text NOT NULL DEFAULT '',
    channel text NOT NULL DEFAULT '',
    action_type text NOT NULL CHECK (action_type IN (
        'Callback URL', 'Validation Endpoint', 'Limits', 'Settings', 'Credentials',
        'Status', 'Configuration', 'Sensitive', 'Other')),
    message text NOT NULL,
    sensitive_action_name text NOT NULL DEFAULT '',
    old_value jsonb,
    new_value jsonb,
    reason text NOT NULL DEFAULT '',
    count integer NOT NULL DEFAULT 1
);

CREATE INDEX activity_log_merchant_at_idx ON activity_log (merchant_id, at DESC, id DESC);
CREATE INDEX activity_log_at_idx ON activity_log (at DESC, id DESC);
CREATE INDEX activity_log_collab_at_idx ON activity_log (collab_id, at DESC, id DESC);
