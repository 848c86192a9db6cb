package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/auth/internal/identity"
	"github.com/paygate/paygate/services/auth/internal/roles"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Roles implements roles.Store: the role editor's writes, on the tables of
// the auth schema (roles, role_permissions), beside the users'.
type Roles struct {
	pool *pgxpool.Pool
}

var (
	_ roles.Store = (*Roles)(nil)
	_ roles.Tx    = (*rolesTx)(nil)
)

// NewRoles returns the role store over pool, whose search_path must select
// the schema.
func NewRoles(pool *pgxpool.Pool) *Roles { return &Roles{pool: pool} }

// Tx implements roles.Store.
func (s *Roles) Tx(ctx context.Context, fn func(roles.Tx) error) error {
	return pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error { return fn(&rolesTx{tx: &tx{t: t}}) })
}

// rolesTx is a role change's transaction; it shares the user
// administration's lock, session revocation and outbox with tx.
type rolesTx struct {
	*tx
}

func (x *rolesTx) RoleForUpdate(ctx context.Context, id int32) (identity.Role, error) {
	r, err := scanRole(x.t.QueryRow(ctx, `SELECT `+roleColumns+` FROM roles r WHERE r.id = $1 FOR UPDATE OF r`, id))
	if err != nil && apperr.KindOf(err) != apperr.KindNotFound {
		return r, fmt.Errorf("select role %d for update: %w", id, err)
	}
	return r, err
}

func (x *rolesTx) InsertRole(ctx context.Context, r identity.Role, at time.Time) (int32, error) {
	var id int32
	err := x.t.QueryRow(ctx, `
		INSERT INTO roles (name, built_in, global_scope, created_at, updated_at)
		VALUES ($1, false, $2, $3, $3) RETURNING id::integer`, r.Name, r.Global, at).Scan(&id)
	if isUniqueViolation(err) {
		return 0, apperr.Conflict("A role named %s already exists.", r.Name)
	}
	if err != nil {
		return 0, fmt.Errorf("insert role: %w", err)
	}
	return id, x.setPermissions(ctx, id, r.Permissions)
}

func (x *rolesTx) UpdateRole(ctx context.Context, r identity.Role, at time.Time) error {
	tag, err := x.t.Exec(ctx, `UPDATE roles SET name = $2, global_scope = $3, updated_at = $4 WHERE id = $1 AND NOT built_in`,
		r.ID, r.Name, r.Global, at)
	if isUniqueViolation(err) {
		return apperr.Conflict("A role named %s already exists.", r.Name)
	}
	if err != nil {
		return fmt.Errorf("update role %d: %w", r.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return apperr.NotFound(identity.MsgRoleNotFound)
	}
	return x.setPermissions(ctx, r.ID, r.Permissions)
}

// setPermissions replaces the permissions of role id by name.
func (x *rolesTx) setPermissions(ctx context.Context, id int32, perms []string) error {
	if _, err := x.t.Exec(ctx, `DELETE FROM role_permissions WHERE role_id = $1`, id); err != nil {
		return fmt.Errorf("clear permissions of role %d: %w", id, err)
	}
	if perms == nil {
		perms = []string{}
	}
	tag, err := x.t.Exec(ctx, `
		INSERT INTO role_permissions (role_id, permission_id)
		SELECT $1, p.id FROM permissions p WHERE p.name = ANY ($2::text[])`, id, perms)
	if err != nil {
		return fmt.Errorf("insert permissions of role %d: %w", id, err)
	}
	if tag.RowsAffected() != int64(len(perms)) {
		return fmt.Errorf("role %d: unknown permission among %v", id, perms)
	}
	return nil
}

func (x *rolesTx) DeleteRole(ctx context.Context, id int32) error {
	if _, err := x.t.Exec(ctx, `DELETE FROM roles WHERE id = $1 AND NOT built_in`, id); err != nil {
		return fmt.Errorf("delete role %d: %w", id, err)
	}
	return nil
}

func (x *rolesTx) RoleHolders(ctx context.Context, id int32) ([]roles.Holder, error) {
	rows, err := x.t.Query(ctx, `
		SELECT u.id, u.username FROM users u JOIN user_roles ur ON ur.user_id = u.id
		WHERE ur.role_id = $1 ORDER BY lower(u.username), u.id`, id)
	if err != nil {
		return nil, fmt.Errorf("select holders of role %d: %w", id, err)
	}
	holders, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (roles.Holder, error) {
		var h roles.Holder
		err := r.Scan(&h.ID, &h.Username)
		return h, err
	})
	if err != nil {
		return nil, fmt.Errorf("select holders of role %d: %w", id, err)
	}
	return holders, nil
}
