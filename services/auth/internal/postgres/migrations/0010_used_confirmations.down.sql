DROP TABLE used_confirmations;
ALTER TABLE approval_confirmations RENAME TO used_confirmations;
