-- Slow enough that replicas started together find the lock taken.
SELECT pg_sleep(1);
INSERT INTO runs VALUES (2);
