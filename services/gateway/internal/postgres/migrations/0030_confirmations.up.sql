-- Sensitive actions (issue 28, docs/contracts-approvals.md). used_confirmations
-- holds every confirmation token the gateway applied, with its proofs: a
-- token's id is stored once, so a second use is refused (the text of
-- stepup.Table). The activity log's entry of a confirmed change carries the
-- confirmation's id and proofs (its reason goes to the reason column).
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

ALTER TABLE activity_log
    ADD COLUMN confirmation_id text NOT NULL DEFAULT '',
    ADD COLUMN proofs jsonb;
