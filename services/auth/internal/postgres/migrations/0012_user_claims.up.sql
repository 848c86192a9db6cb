-- A user's claims — role names, permission names, merchant ids and whether
-- a role of theirs sees every merchant — kept on the user's row, so that a
-- sign-in, a refresh and a token check read one row instead of running four
-- subqueries over user_roles, roles, role_permissions, permissions and
-- user_merchants (issue 31: 0.12 ms of Postgres's 0.6 ms per refresh).
--
-- Triggers keep them: every change to those tables recomputes the claims of
-- the users it touches, in the same transaction. Locks make concurrent
-- changes safe under READ COMMITTED: the recompute locks the users' rows
-- first, and a change to a role (its permissions, name or scope) locks its
-- holders' rows and then the role FOR UPDATE, which waits for any
-- transaction granting that role (its foreign-key check holds a key share
-- on the role) and makes any later grant wait for this one; each recompute
-- then reads in a snapshot taken after its locks.
--
-- Expand only: an older release neither reads nor writes the columns, and
-- its writes to the source tables keep them right through the triggers.
SET lock_timeout = '5s';

ALTER TABLE users
    ADD COLUMN claim_roles        text[]    NOT NULL DEFAULT '{}',
    ADD COLUMN claim_permissions  text[]    NOT NULL DEFAULT '{}',
    ADD COLUMN claim_merchant_ids integer[] NOT NULL DEFAULT '{}',
    ADD COLUMN claim_global       boolean   NOT NULL DEFAULT false;

CREATE FUNCTION refresh_user_claims(ids bigint[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM users WHERE id = ANY (ids) ORDER BY id FOR UPDATE;
    UPDATE users u SET
        claim_roles = coalesce((SELECT array_agg(r.name ORDER BY r.id)
                                FROM user_roles ur JOIN roles r ON r.id = ur.role_id
                                WHERE ur.user_id = u.id), '{}'),
        claim_permissions = coalesce((SELECT array_agg(p.name ORDER BY p.id)
                                      FROM permissions p
                                      WHERE p.id IN (SELECT rp.permission_id
                                                     FROM user_roles ur JOIN role_permissions rp ON rp.role_id = ur.role_id
                                                     WHERE ur.user_id = u.id)), '{}'),
        claim_merchant_ids = coalesce((SELECT array_agg(um.merchant_id ORDER BY um.merchant_id)
                                       FROM user_merchants um WHERE um.user_id = u.id), '{}'),
        claim_global = EXISTS (SELECT 1 FROM user_roles ur JOIN roles r ON r.id = ur.role_id
                               WHERE ur.user_id = u.id AND r.global_scope)
    WHERE u.id = ANY (ids);
END $$;

CREATE FUNCTION refresh_role_claims(role_ids smallint[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    -- The holders' rows before the roles: a user edit holds its user's row
    -- and then takes a key share on each role it grants, so locking the
    -- roles first would deadlock with it.
    PERFORM 1 FROM users WHERE id IN (SELECT user_id FROM user_roles WHERE role_id = ANY (role_ids))
        ORDER BY id FOR UPDATE;
    PERFORM 1 FROM roles WHERE id = ANY (role_ids) ORDER BY id FOR UPDATE;
    PERFORM refresh_user_claims(ARRAY(SELECT DISTINCT user_id FROM user_roles WHERE role_id = ANY (role_ids)));
END $$;

-- user_roles and user_merchants: the users of the changed rows. Each
-- trigger names its rows "changed" (an update fires twice: the rows before
-- and the rows after), so one statement serves every event.
CREATE FUNCTION user_claims_by_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM refresh_user_claims(ARRAY(SELECT DISTINCT user_id FROM changed));
    RETURN NULL;
END $$;

-- role_permissions: the holders of the changed rows' roles.
CREATE FUNCTION user_claims_by_role_permission() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM refresh_role_claims(ARRAY(SELECT DISTINCT role_id FROM changed));
    RETURN NULL;
END $$;

-- roles: the holders of a role whose name or scope changed.
CREATE FUNCTION user_claims_by_role() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM refresh_role_claims(ARRAY(
        SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE n.name IS DISTINCT FROM o.name OR n.global_scope IS DISTINCT FROM o.global_scope));
    RETURN NULL;
END $$;

-- permissions: the holders of a renamed permission.
CREATE FUNCTION user_claims_by_permission() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM refresh_role_claims(ARRAY(
        SELECT DISTINCT rp.role_id FROM role_permissions rp
        WHERE rp.permission_id IN (SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
                                   WHERE n.name IS DISTINCT FROM o.name)));
    RETURN NULL;
END $$;

CREATE TRIGGER user_roles_claims_insert AFTER INSERT ON user_roles
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION user_claims_by_user();
CREATE TRIGGER user_roles_claims_delete AFTER DELETE ON user_roles
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION user_claims_by_user();
CREATE TRIGGER user_roles_claims_update_from AFTER UPDATE ON user_roles
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION user_claims_by_user();
CREATE TRIGGER user_roles_claims_update_to AFTER UPDATE ON user_roles
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION user_claims_by_user();

CREATE TRIGGER user_merchants_claims_insert AFTER INSERT ON user_merchants
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION user_claims_by_user();
CREATE TRIGGER user_merchants_claims_delete AFTER DELETE ON user_merchants
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION user_claims_by_user();
CREATE TRIGGER user_merchants_claims_update_from AFTER UPDATE ON user_merchants
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION user_claims_by_user();
CREATE TRIGGER user_merchants_claims_update_to AFTER UPDATE ON user_merchants
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION user_claims_by_user();

CREATE TRIGGER role_permissions_claims_insert AFTER INSERT ON role_permissions
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION user_claims_by_role_permission();
CREATE TRIGGER role_permissions_claims_delete AFTER DELETE ON role_permissions
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION user_claims_by_role_permission();
CREATE TRIGGER role_permissions_claims_update_from AFTER UPDATE ON role_permissions
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION user_claims_by_role_permission();
CREATE TRIGGER role_permissions_claims_update_to AFTER UPDATE ON role_permissions
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION user_claims_by_role_permission();

CREATE TRIGGER roles_claims_update AFTER UPDATE ON roles
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION user_claims_by_role();
CREATE TRIGGER permissions_claims_update AFTER UPDATE ON permissions
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION user_claims_by_permission();

-- The functions find their tables in this schema whatever the search_path
-- of the statement that fires them (a tool or test may qualify the table
-- names instead of setting it).
DO $$
DECLARE
    f text;
BEGIN
    FOREACH f IN ARRAY ARRAY['refresh_user_claims(bigint[])', 'refresh_role_claims(smallint[])',
                             'user_claims_by_user()', 'user_claims_by_role_permission()',
                             'user_claims_by_role()', 'user_claims_by_permission()'] LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = %I', f, current_schema());
    END LOOP;
END $$;

-- The users there are now.
SELECT refresh_user_claims(ARRAY(SELECT id FROM users));
