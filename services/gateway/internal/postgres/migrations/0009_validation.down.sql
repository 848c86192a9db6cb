DROP TABLE IF EXISTS validation_results;
DROP TABLE IF EXISTS validation_endpoints;
