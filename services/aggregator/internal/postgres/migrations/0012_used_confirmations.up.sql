-- Sensitive actions (issue 28, docs/contracts-approvals.md): every
-- confirmation token the aggregator applied (switching a job on or off),
-- with its proofs; a token's id is stored once, so a second use is refused
-- (the text of stepup.Table).
CREATE TABLE used_confirmations (
    id text PRIMARY KEY,
    user_id bigint NOT NULL,
    action text NOT NULL,
    canonical text NOT NULL,
    digest text NOT NULL,
    proof text NOT NULL DEFAULT '',
    proofs jsonb NOT NULL DEFAULT '[]',
    approval_request_id bigint,
    expires_at timestamptz,
    used_at timestamptz NOT NULL DEFAULT now()
);
