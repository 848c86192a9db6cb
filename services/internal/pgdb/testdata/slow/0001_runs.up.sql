-- Records each file's run, so that a test can count how often it ran.
CREATE TABLE runs (file int NOT NULL);
INSERT INTO runs VALUES (1);
