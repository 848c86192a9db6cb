DROP TABLE transaction_logs;
DROP TABLE transactions;
DROP TABLE fees;
DROP TABLE provider_connections;
DROP TABLE merchant_api_secrets;
