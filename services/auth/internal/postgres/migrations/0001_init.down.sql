DROP TABLE IF EXISTS outbox, signing_keys, refresh_tokens, sessions, user_allowed_ips,
    user_merchants, user_roles, users, role_permissions, permissions, roles;
