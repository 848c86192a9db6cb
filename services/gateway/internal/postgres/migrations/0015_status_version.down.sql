ALTER TABLE transactions DROP COLUMN status_version;
