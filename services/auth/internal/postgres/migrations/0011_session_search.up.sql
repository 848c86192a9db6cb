-- The session list's search (docs/contracts-security.md: username, IP or
-- user agent contains, ignoring case) matches usernames through the users it
-- finds (a trigram index on usernames, then sessions_live_user_idx) and the
-- IP and user agent through a trigram index, instead of testing three ILIKEs on every live session (issue 31: a
-- rare search took 800 ms over 100,000 sessions).
--
-- pg_trgm ships with PostgreSQL and is trusted (any role that may create in
-- the database can install it). It goes to the public schema, once per
-- database, so that every service schema finds it; where it cannot be
-- installed the migration goes on without the index and the search scans
-- the live sessions as before.
DO $$
BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
EXCEPTION WHEN insufficient_privilege OR undefined_file OR invalid_schema_name OR unique_violation OR duplicate_object THEN
    RAISE NOTICE 'pg_trgm is not available (%): the session search scans the live sessions', SQLERRM;
END
$$;

DO $$
DECLARE
    ns text := (SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pg_trgm');
BEGIN
    IF ns IS NOT NULL THEN
        EXECUTE format(
            'CREATE INDEX sessions_live_search_idx ON sessions USING gin ((lower(ip || %L || user_agent)) %s.gin_trgm_ops) WHERE revoked_at IS NULL',
            E'\n', ns);
        -- Usernames contain the search (the session and the user lists).
        EXECUTE format('CREATE INDEX users_username_search_idx ON users USING gin (username %s.gin_trgm_ops)', ns);
    END IF;
END
$$;
