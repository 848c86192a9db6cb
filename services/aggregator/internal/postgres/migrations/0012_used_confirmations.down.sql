DROP TABLE used_confirmations;
