package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/auth/internal/identity"
)

// SigningKeys returns the live signing keys, newest first, creating the first
// one when there is none. Replicas starting together agree on one key: the
// insert takes an advisory lock and re-checks.
func (s *Store) SigningKeys(ctx context.Context) ([]identity.SigningKey, error) {
	keys, err := s.liveKeys(ctx)
	if err != nil || len(keys) > 0 {
		return keys, err
	}
	gen, err := identity.GenerateSigningKey()
	if err != nil {
		return nil, err
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('auth.signing_keys'))`); err != nil {
		return nil, fmt.Errorf("lock signing keys: %w", err)
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO signing_keys (kid, private_key)
		SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM signing_keys WHERE retired_at IS NULL)`,
		gen.ID, []byte(gen.Private)); err != nil {
		return nil, fmt.Errorf("insert signing key: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("commit signing key: %w", err)
	}
	return s.liveKeys(ctx)
}

func (s *Store) liveKeys(ctx context.Context) ([]identity.SigningKey, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT kid, private_key FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC, kid`)
	if err != nil {
		return nil, fmt.Errorf("select signing keys: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (identity.SigningKey, error) {
		var k identity.SigningKey
		var priv []byte
		err := r.Scan(&k.ID, &priv)
		k.Private = priv
		return k, err
	})
}
