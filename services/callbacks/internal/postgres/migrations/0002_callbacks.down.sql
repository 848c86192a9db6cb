DROP TABLE IF EXISTS attempts;
DROP TABLE IF EXISTS deliveries;
DROP TABLE IF EXISTS delivery_bodies;
DROP TABLE IF EXISTS tallies;
DROP TABLE IF EXISTS transactions;
DROP TABLE IF EXISTS signing_secrets;
DROP TABLE IF EXISTS callback_urls;
