package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/gateway/internal/view"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Views is the Postgres implementation of view.Store (migration 0035).
type Views struct {
	pool *pgxpool.Pool
}

var _ view.Store = (*Views)(nil)

// NewViews returns the saved-view store on pool.
func NewViews(pool *pgxpool.Pool) *Views { return &Views{pool: pool} }

const entityView = "The view"

// viewColumns are a view's columns and whether it is the default of the
// reader $1.
const viewColumns = `v.id, v.user_id, v.owner_name, v.scope_all, v.scope_merchant_ids, v.list, v.name, v.query, v.columns,
	v.sort, v.page_size, v.time_zone, v.shared, v.created_at, v.updated_at,
	EXISTS (SELECT 1 FROM view_defaults d WHERE d.user_id = $1 AND d.view_id = v.id)`

func scanView(row pgx.Row) (view.View, error) {
	var v view.View
	var list string
	if err := row.Scan(&v.ID, &v.UserID, &v.OwnerName, &v.Scope.All, &v.Scope.MerchantIDs, &list, &v.Name, &v.Query, &v.Columns,
		&v.Sort, &v.PageSize, &v.TimeZone, &v.Shared, &v.CreatedAt, &v.UpdatedAt, &v.IsDefault); err != nil {
		return v, err
	}
	v.List = view.List(list)
	if v.Columns == nil {
		v.Columns = []string{}
	}
	v.CreatedAt, v.UpdatedAt = v.CreatedAt.UTC(), v.UpdatedAt.UTC()
	return v, nil
}

// translateView turns the name's unique violation into the contract's
// conflict.
func translateView(err error, v view.View) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == "views_owner_name_idx" {
		return apperr.New(apperr.KindConflict, err, "You already have a %s view named %q: choose another name.", v.List, v.Name)
	}
	return pgdb.Translate(err, entityView)
}

func viewArgs(v view.View) []any {
	ids := view.SortedIDs(v.Scope.MerchantIDs)
	if v.Scope.All || ids == nil {
		ids = []int32{}
	}
	cols := v.Columns
	if cols == nil {
		cols = []string{}
	}
	return []any{v.UserID, v.OwnerName, v.Scope.All, ids, view.ScopeKey(v.Scope), string(v.List), v.Name, v.Query, cols,
		v.Sort, v.PageSize, v.TimeZone, v.Shared}
}

// Create implements view.Store: the count and the insert run under a
// per-user advisory lock, so two creates cannot both pass the limit.
func (s *Views) Create(ctx context.Context, v view.View, max int) (view.View, error) {
	var out view.View
	err := pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('views'), $1::integer)`, int32(v.UserID)); err != nil {
			return fmt.Errorf("lock views of user %d: %w", v.UserID, err)
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM views WHERE user_id = $1 AND list = $2`, v.UserID, string(v.List)).Scan(&n); err != nil {
			return fmt.Errorf("count views: %w", err)
		}
		if n >= max {
			return apperr.Conflict("You have %d views of the %s list, the most one user may save: delete one first.", max, v.List)
		}
		var err error
		out, err = scanView(tx.QueryRow(ctx, `WITH v AS (INSERT INTO views (user_id, owner_name, scope_all, scope_merchant_ids,
			scope_key, list, name, query, columns, sort, page_size, time_zone, shared)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING *)
			SELECT `+viewColumns+` FROM v`, viewArgs(v)...))
		if err != nil {
			return fmt.Errorf("insert view: %w", translateView(err, v))
		}
		return nil
	})
	return out, err
}

// Get implements view.Store.
func (s *Views) Get(ctx context.Context, reader, id int64) (view.View, error) {
	v, err := scanView(s.pool.QueryRow(ctx, `SELECT `+viewColumns+` FROM views v WHERE v.id = $2`, reader, id))
	return v, pgdb.Translate(err, entityView)
}

// List implements view.Store: the owner's name index and the shared
// index each serve one side of the OR.
func (s *Views) List(ctx context.Context, reader int64, list view.List, scopeKey string) ([]view.View, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+viewColumns+` FROM views v
		WHERE v.list = $2 AND (v.user_id = $1 OR (v.shared AND v.scope_key = $3 AND $3 <> ''))
		ORDER BY v.user_id <> $1, lower(v.name), v.id`, reader, string(list), scopeKey)
	if err != nil {
		return nil, fmt.Errorf("select views: %w", err)
	}
	vs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (view.View, error) { return scanView(r) })
	if err != nil {
		return nil, fmt.Errorf("select views: %w", err)
	}
	return vs, nil
}

// Update implements view.Store.
func (s *Views) Update(ctx context.Context, v view.View) (view.View, error) {
	var out view.View
	err := pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		out, err = scanView(tx.QueryRow(ctx, `WITH v AS (UPDATE views SET owner_name = $2, scope_all = $3,
			scope_merchant_ids = $4, scope_key = $5, name = $7, query = $8, columns = $9, sort = $10, page_size = $11,
			time_zone = $12, shared = $13, updated_at = now()
			WHERE id = $14 AND user_id = $1 AND list = $6 RETURNING *)
			SELECT `+viewColumns+` FROM v`, append(viewArgs(v), v.ID)...))
		if err != nil {
			return fmt.Errorf("update view %d: %w", v.ID, translateView(err, v))
		}
		if !v.Shared {
			if _, err := tx.Exec(ctx, `DELETE FROM view_defaults WHERE view_id = $1 AND user_id <> $2`, v.ID, v.UserID); err != nil {
				return fmt.Errorf("clear the others' defaults of view %d: %w", v.ID, err)
			}
		}
		return nil
	})
	return out, err
}

// Delete implements view.Store; the defaults go with it (ON DELETE
// CASCADE).
func (s *Views) Delete(ctx context.Context, owner, id int64) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM views WHERE id = $1 AND user_id = $2`, id, owner)
	if err != nil {
		return fmt.Errorf("delete view %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return apperr.NotFound("%s was not found.", entityView)
	}
	return nil
}

// SetDefault implements view.Store; a view deleted meanwhile is not found.
func (s *Views) SetDefault(ctx context.Context, user int64, list view.List, id int64) error {
	var err error
	if id == 0 {
		_, err = s.pool.Exec(ctx, `DELETE FROM view_defaults WHERE user_id = $1 AND list = $2`, user, string(list))
	} else {
		_, err = s.pool.Exec(ctx, `INSERT INTO view_defaults (user_id, list, view_id) VALUES ($1, $2, $3)
			ON CONFLICT (user_id, list) DO UPDATE SET view_id = EXCLUDED.view_id`, user, string(list), id)
	}
	if code, _, ok := pgdb.ConstraintViolation(err); ok && code == "23503" {
		return apperr.New(apperr.KindNotFound, err, "%s was not found.", entityView)
	}
	if err != nil {
		return fmt.Errorf("set user %d's default %s view: %w", user, list, err)
	}
	return nil
}
