DROP INDEX IF EXISTS sessions_live_search_idx;
DROP INDEX IF EXISTS users_username_search_idx;
-- pg_trgm stays: other schemas of the database may use it.
