DROP TABLE bulk_run_items;
DROP TABLE bulk_runs;
