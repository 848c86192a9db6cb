DROP TABLE fraud_detection_state;
DROP TABLE fraud_client_stats;
DROP TABLE fraud_transactions;
DROP TABLE client_frauds;
