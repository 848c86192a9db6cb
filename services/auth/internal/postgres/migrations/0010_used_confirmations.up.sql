-- Sensitive actions (issue 28, docs/contracts-approvals.md): auth's own
-- sensitive methods (a user's roles, merchants and allowed IPs, custom roles,
-- approving a request) pass the stepup guard like the gateway's, which keeps
-- every confirmation token it applied, with its proofs, in used_confirmations
-- (the text of stepup.Table). The table of that name that 0009 created for the
-- approval tokens alone becomes approval_confirmations.
ALTER TABLE used_confirmations RENAME TO approval_confirmations;

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
