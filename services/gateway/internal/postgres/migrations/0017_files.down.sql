DROP TABLE files;
