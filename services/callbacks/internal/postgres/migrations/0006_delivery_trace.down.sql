ALTER TABLE delivery_bodies DROP COLUMN IF EXISTS traceparent;
