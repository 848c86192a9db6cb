-- A URL enabled twice on one collab was sent every transaction of the collab
-- twice. One enabled row per (collab, url) from now on: of the enabled
-- duplicates already stored, the oldest stays enabled and the others are
-- disabled (still listed, so an operator sees them; deliveries they already
-- queued are sent as before).
UPDATE callback_urls u SET is_enabled = false, updated_at = now()
WHERE u.is_enabled AND EXISTS (
    SELECT 1 FROM callback_urls o
    WHERE o.collab_id = u.collab_id AND o.url = u.url AND o.is_enabled AND o.id < u.id);

CREATE UNIQUE INDEX callback_urls_enabled_url_key ON callback_urls (collab_id, url) WHERE is_enabled;
