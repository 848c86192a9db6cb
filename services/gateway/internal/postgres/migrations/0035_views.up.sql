-- Saved views (issue 29, docs/contracts-views.md). A view is one user's name
-- plus one list's filters (query: the console's query string) and layout.
-- scope_all/scope_merchant_ids are the owner's merchant scope when the view
-- was last saved (all merchants, or the sorted merchant ids of the token);
-- scope_key is their canonical text ('all', or the ids joined by commas;
-- empty for a user without merchants), with which a shared view is found by
-- the users of the same scope. owner_name is the owner's user name from the
-- token, for the "shared by" of the others.
CREATE TABLE views (
    id bigserial PRIMARY KEY,
    user_id bigint NOT NULL,
    owner_name text NOT NULL DEFAULT '',
    scope_all boolean NOT NULL,
    scope_merchant_ids integer[] NOT NULL DEFAULT '{}',
    scope_key text NOT NULL,
    list text NOT NULL CHECK (list IN ('transactions', 'frauds', 'files')),
    name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
    query text NOT NULL DEFAULT '' CHECK (char_length(query) <= 2000),
    columns text[] NOT NULL DEFAULT '{}' CHECK (cardinality(columns) <= 40),
    sort text NOT NULL DEFAULT '' CHECK (char_length(sort) <= 60),
    page_size integer NOT NULL DEFAULT 0 CHECK (page_size BETWEEN 0 AND 500),
    time_zone text NOT NULL DEFAULT '',
    shared boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CHECK (scope_all = (scope_key = 'all'))
);

-- A name is unique per owner and list, whatever its case; the index also
-- serves "the owner's views of a list, by name".
CREATE UNIQUE INDEX views_owner_name_idx ON views (user_id, list, lower(name));
-- "The views of a list shared with a scope, by name".
CREATE INDEX views_shared_idx ON views (list, scope_key, lower(name)) WHERE shared;

-- Each user's default view per list; deleting the view clears it.
CREATE TABLE view_defaults (
    user_id bigint NOT NULL,
    list text NOT NULL,
    view_id bigint NOT NULL REFERENCES views (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, list)
);

CREATE INDEX view_defaults_view_idx ON view_defaults (view_id);
