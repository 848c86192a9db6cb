-- Dropping the function drops with it the triggers 0011 put on each
-- configuration table, whatever the list was.
DROP FUNCTION config_version_bump() CASCADE;
DROP FUNCTION batch_assert(boolean, text);
DROP TABLE config_version;
