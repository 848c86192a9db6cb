DROP TABLE IF EXISTS auth_settings, second_factor_challenges, user_recovery_codes, user_totp;
