DELETE FROM runs WHERE file = 2;
