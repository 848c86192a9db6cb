-- Not reversible by a migration: going back would copy every partition's rows into one table
-- while writers wait. docs/partitioning.md ("Going back") gives the manual steps.
DO $$ BEGIN RAISE EXCEPTION 'migration 28 (partitioned transactions) has no automatic down: see docs/partitioning.md'; END $$;
