-- Custom headers of a callback URL (issue 30): sent with each of its
-- deliveries, in position order. A secret header's value is sealed
-- (AES-256-GCM under the keyring, bound to the URL and the header's name)
-- and value is null; a plain one's sealed is null.
CREATE TABLE callback_url_headers (
    callback_url_id bigint NOT NULL REFERENCES callback_urls (id) ON DELETE CASCADE,
    position smallint NOT NULL CHECK (position BETWEEN 0 AND 9),
    name text NOT NULL,
    value text,
    sealed bytea,
    PRIMARY KEY (callback_url_id, position),
    CHECK ((value IS NULL) <> (sealed IS NULL))
);
CREATE UNIQUE INDEX callback_url_headers_name_key ON callback_url_headers (callback_url_id, lower(name));
