ALTER TABLE widgets ADD COLUMN color text NOT NULL DEFAULT 'blue';
