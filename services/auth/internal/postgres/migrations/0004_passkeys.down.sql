DROP TABLE IF EXISTS webauthn_challenges, webauthn_credentials, webauthn_user_handles;
