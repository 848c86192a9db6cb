-- Indexes of the job auth.session-cleanup, which deletes expired refresh
-- tokens and ended sessions in small batches.
CREATE INDEX refresh_tokens_expires_idx ON refresh_tokens (expires_at);
-- A session ends when its refresh tokens expire or when it is revoked,
-- whichever comes first.
CREATE INDEX sessions_ended_idx ON sessions (LEAST(refresh_expires_at, COALESCE(revoked_at, 'infinity')));
