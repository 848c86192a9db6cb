DROP INDEX IF EXISTS sessions_ended_idx;
DROP INDEX IF EXISTS refresh_tokens_expires_idx;
