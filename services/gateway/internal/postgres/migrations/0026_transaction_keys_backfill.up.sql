-- Monthly partitions of transactions (docs/partitioning.md), step 3 of 5: the keys of the rows
-- written before 0025 (those after have theirs from 0025's trigger; its CREATE TRIGGER waited for
-- the writers in flight). A migration of its own, so that no lock that writers wait for is held
-- meanwhile: this reads transactions and writes transaction_keys, and writers' keys never collide
-- with the ones it copies. One statement, in one transaction (0024-0029 took 40 s at 3 M rows here;
-- docs/partitioning.md, "Migrating a table with rows").
INSERT INTO transaction_keys (id, created_at, reference_id, merchant_id, nonce)
SELECT id, created_at, reference_id, merchant_id, nonce FROM transactions
ON CONFLICT (id) DO NOTHING;
