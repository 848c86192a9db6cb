DROP TABLE IF EXISTS used_confirmations;
DROP TABLE IF EXISTS proof_keys;
DROP TABLE IF EXISTS step_up_settings;
DROP TABLE IF EXISTS approval_policies;
DROP TABLE IF EXISTS approval_requests;
DROP TABLE IF EXISTS confirmations;
