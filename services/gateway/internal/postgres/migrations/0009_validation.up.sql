-- Validation endpoints (spec 02 §3): merchant URLs asked before a collab's
-- transactions reach their provider, lower priority numbers first.
CREATE TABLE validation_endpoints (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    collab_id integer NOT NULL REFERENCES collabs (id) ON DELETE CASCADE,
    url text NOT NULL CHECK (url <> '' AND length(url) <= 2048),
    priority smallint NOT NULL DEFAULT 1 CHECK (priority BETWEEN 1 AND 100),
    awaitable boolean NOT NULL DEFAULT false,
    for_cash_in boolean NOT NULL DEFAULT false,
    for_cash_out boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX validation_endpoints_collab_idx ON validation_endpoints (collab_id, priority, id);

-- One endpoint's answer for one transaction. The URL, priority and awaitable
-- flag are kept as asked; endpoint_id has no foreign key, so that deleting
-- an endpoint neither touches nor loses its results (reads show 0 for an
-- endpoint that is gone).
CREATE TABLE validation_results (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    transaction_id bigint NOT NULL REFERENCES transactions (id) ON DELETE CASCADE,
    endpoint_id bigint,
    url text NOT NULL,
    priority smallint NOT NULL,
    awaitable boolean NOT NULL,
    status smallint NOT NULL DEFAULT 0 CHECK (status IN (-1, 0, 1)),
    response_code integer NOT NULL DEFAULT 0,
    message text NOT NULL DEFAULT '',
    attempts integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);

CREATE INDEX validation_results_transaction_idx ON validation_results (transaction_id, id);
