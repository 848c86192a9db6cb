DROP INDEX transactions_bulk_idx;
DROP TABLE bulk_run_items;
DROP TABLE bulk_runs;
