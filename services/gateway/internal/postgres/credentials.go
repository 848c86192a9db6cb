package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/balance"
	"github.com/paygate/paygate/services/gateway/internal/credential"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Credentials is the Postgres implementation of credential.Store and
// balance.Store (migration 0021): one sealed row per collab.
type Credentials struct {
	pool *pgxpool.Pool
}

var (
	_ credential.Store = (*Credentials)(nil)
	_ balance.Store    = (*Credentials)(nil)
)

// NewCredentials returns the credentials store on pool.
func NewCredentials(pool *pgxpool.Pool) *Credentials {
	return &Credentials{pool: pool}
}

// Collab implements credential.Store.
func (s *Credentials) Collab(ctx context.Context, id int32) (credential.Collab, error) {
	c := credential.Collab{ID: id}
	err := s.pool.QueryRow(ctx, `
		SELECT c.merchant_id, m.name, c.provider_id, p.name
		FROM collabs c JOIN merchants m ON m.id = c.merchant_id JOIN providers p ON p.id = c.provider_id
		WHERE c.id = $1`, id).Scan(&c.MerchantID, &c.MerchantName, &c.ProviderID, &c.ProviderName)
	if err != nil {
		return c, pgdb.Translate(fmt.Errorf("find collab %d: %w", id, err), entityCollab)
	}
	return c, nil
}

// Sealed implements credential.Store.
func (s *Credentials) Sealed(ctx context.Context, collabID int32) (credential.Sealed, bool, error) {
	var sl credential.Sealed
	err := s.pool.QueryRow(ctx, `SELECT key_id, sealed FROM collab_credentials WHERE collab_id = $1`, collabID).Scan(&sl.KeyID, &sl.Data)
	if errors.Is(err, pgx.ErrNoRows) {
		return sl, false, nil
	}
	if err != nil {
		return sl, false, fmt.Errorf("select credentials of collab %d: %w", collabID, err)
	}
	return sl, true, nil
}

// Replace implements credential.Store. The collab's row is locked (no key
// update: payments referencing it are not held up) so that concurrent
// changes of one collab's credentials take turns, a first one included.
func (s *Credentials) Replace(ctx context.Context, collabID int32, by string,
	fn func(ctx context.Context, j activity.Journal, old *credential.Sealed) (credential.Sealed, error)) error {
	return pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error {
		var one int
		if err := t.QueryRow(ctx, `SELECT 1 FROM collabs WHERE id = $1 FOR NO KEY UPDATE`, collabID).Scan(&one); err != nil {
			return pgdb.Translate(fmt.Errorf("lock collab %d: %w", collabID, err), entityCollab)
		}
		var old *credential.Sealed
		var sl credential.Sealed
		err := t.QueryRow(ctx, `SELECT key_id, sealed FROM collab_credentials WHERE collab_id = $1`, collabID).Scan(&sl.KeyID, &sl.Data)
		switch {
		case err == nil:
			old = &sl
		case !errors.Is(err, pgx.ErrNoRows):
			return fmt.Errorf("select credentials of collab %d: %w", collabID, err)
		}
		next, err := fn(ctx, &tx{t: t}, old)
		if err != nil {
			return err
		}
		_, err = t.Exec(ctx, `
			INSERT INTO collab_credentials (collab_id, key_id, sealed, updated_by) VALUES ($1, $2, $3, $4)
			ON CONFLICT (collab_id) DO UPDATE SET key_id = EXCLUDED.key_id, sealed = EXCLUDED.sealed,
				updated_by = EXCLUDED.updated_by, updated_at = now()`, collabID, next.KeyID, next.Data, by)
		if err != nil {
			return fmt.Errorf("store credentials of collab %d: %w", collabID, err)
		}
		return nil
	})
}

// NotUnderKey implements credential.Store.
func (s *Credentials) NotUnderKey(ctx context.Context, keyID string, after int32, limit int) ([]int32, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT collab_id FROM collab_credentials WHERE key_id <> $1 AND collab_id > $2 ORDER BY collab_id LIMIT $3`,
		keyID, after, limit)
	if err != nil {
		return nil, fmt.Errorf("select credentials not under key %s: %w", keyID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return nil, fmt.Errorf("read credentials not under key %s: %w", keyID, err)
	}
	return ids, nil
}

// BalanceTarget implements balance.Store.
func (s *Credentials) BalanceTarget(ctx context.Context, collabID int32) (balance.Target, error) {
	tg := balance.Target{CollabID: collabID}
	err := s.pool.QueryRow(ctx, `
		SELECT c.merchant_id, p.id, p.name, p.path_segment, p.supports_balance, COALESCE(pc.base_url, '')
		FROM collabs c JOIN providers p ON p.id = c.provider_id
		LEFT JOIN provider_connections pc ON pc.provider_id = p.id
		WHERE c.id = $1`, collabID).Scan(&tg.MerchantID, &tg.ProviderID, &tg.ProviderName, &tg.PathSegment,
		&tg.SupportsBalance, &tg.BaseURL)
	if err != nil {
		return tg, pgdb.Translate(fmt.Errorf("find collab %d: %w", collabID, err), entityCollab)
	}
	return tg, nil
}

// listCollabs returns up to limit collabs of the merchants in scope (only
// those whose provider reports a balance when balanceOnly), by merchant
// then provider name; collabs_merchant_id's index serves a merchant's.
func (s *Credentials) listCollabs(ctx context.Context, scope merchant.Scope, balanceOnly bool, limit int) ([]balance.Listed, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT c.id, m.id, m.name, p.id, p.name, p.path_segment
		FROM collabs c JOIN merchants m ON m.id = c.merchant_id JOIN providers p ON p.id = c.provider_id
		WHERE ($1 OR c.merchant_id = ANY($2)) AND (NOT $3 OR p.supports_balance)
		ORDER BY m.name, p.name, c.id LIMIT $4`, scope.All, scope.MerchantIDs, balanceOnly, limit)
	if err != nil {
		return nil, fmt.Errorf("select collabs: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (balance.Listed, error) {
		var l balance.Listed
		err := row.Scan(&l.CollabID, &l.MerchantID, &l.MerchantName, &l.ProviderID, &l.ProviderName, &l.PathSegment)
		return l, err
	})
	if err != nil {
		return nil, fmt.Errorf("read collabs: %w", err)
	}
	return out, nil
}

// BalanceCollabs implements balance.Store.
func (s *Credentials) BalanceCollabs(ctx context.Context, scope merchant.Scope, limit int) ([]balance.Listed, error) {
	return s.listCollabs(ctx, scope, true, limit)
}

// Collabs implements credential.Store.
func (s *Credentials) Collabs(ctx context.Context, scope merchant.Scope, limit int) ([]credential.Listed, error) {
	return s.listCollabs(ctx, scope, false, limit)
}
