DROP TRIGGER IF EXISTS user_roles_claims_insert ON user_roles;
DROP TRIGGER IF EXISTS user_roles_claims_delete ON user_roles;
DROP TRIGGER IF EXISTS user_roles_claims_update_from ON user_roles;
DROP TRIGGER IF EXISTS user_roles_claims_update_to ON user_roles;
DROP TRIGGER IF EXISTS user_merchants_claims_insert ON user_merchants;
DROP TRIGGER IF EXISTS user_merchants_claims_delete ON user_merchants;
DROP TRIGGER IF EXISTS user_merchants_claims_update_from ON user_merchants;
DROP TRIGGER IF EXISTS user_merchants_claims_update_to ON user_merchants;
DROP TRIGGER IF EXISTS role_permissions_claims_insert ON role_permissions;
DROP TRIGGER IF EXISTS role_permissions_claims_delete ON role_permissions;
DROP TRIGGER IF EXISTS role_permissions_claims_update_from ON role_permissions;
DROP TRIGGER IF EXISTS role_permissions_claims_update_to ON role_permissions;
DROP TRIGGER IF EXISTS roles_claims_update ON roles;
DROP TRIGGER IF EXISTS permissions_claims_update ON permissions;
DROP FUNCTION IF EXISTS user_claims_by_user();
DROP FUNCTION IF EXISTS user_claims_by_role_permission();
DROP FUNCTION IF EXISTS user_claims_by_role();
DROP FUNCTION IF EXISTS user_claims_by_permission();
DROP FUNCTION IF EXISTS refresh_role_claims(smallint[]);
DROP FUNCTION IF EXISTS refresh_user_claims(bigint[]);
ALTER TABLE users
    DROP COLUMN IF EXISTS claim_roles,
    DROP COLUMN IF EXISTS claim_permissions,
    DROP COLUMN IF EXISTS claim_merchant_ids,
    DROP COLUMN IF EXISTS claim_global;
