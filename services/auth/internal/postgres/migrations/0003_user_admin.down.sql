DROP INDEX IF EXISTS sessions_live_expiry_idx;
DROP INDEX IF EXISTS sessions_live_user_idx;
DROP INDEX IF EXISTS sessions_live_created_idx;
DROP INDEX IF EXISTS user_roles_role_idx;
ALTER TABLE users DROP COLUMN IF EXISTS is_disabled;
