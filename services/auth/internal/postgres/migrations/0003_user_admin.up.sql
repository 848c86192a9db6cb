-- User administration (issue 15): disabled users, and the indexes of the
-- users, sessions and allowed-IP lists.
ALTER TABLE users ADD COLUMN is_disabled boolean NOT NULL DEFAULT false;

-- Role lookups of the user list and the last-Admin rule.
CREATE INDEX user_roles_role_idx ON user_roles (role_id, user_id);

-- The live-session list, newest sign-in first, among unrevoked sessions:
-- its page is picked from these indexes alone (index-only scans), for every
-- session or for the sessions of a few users, before the rows are read.
CREATE INDEX sessions_live_created_idx ON sessions (created_at DESC, id DESC)
    INCLUDE (user_id, refresh_expires_at) WHERE revoked_at IS NULL;
CREATE INDEX sessions_live_user_idx ON sessions (user_id, created_at DESC, id DESC)
    INCLUDE (refresh_expires_at) WHERE revoked_at IS NULL;
-- Its count: unrevoked sessions whose refresh has not expired.
CREATE INDEX sessions_live_expiry_idx ON sessions (refresh_expires_at) WHERE revoked_at IS NULL;
