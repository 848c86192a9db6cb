CREATE TABLE merchants (
    id integer PRIMARY KEY,
    name text NOT NULL,
    hash text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
);
