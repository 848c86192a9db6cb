package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// SealedKeys implements callback.SecretStore.
func (s *Store) SealedKeys(ctx context.Context, merchantIDs []int32) (map[int32][]byte, error) {
	rows, err := s.pool.Query(ctx, `SELECT merchant_id, sealed FROM signing_secrets WHERE merchant_id = ANY($1)`, merchantIDs)
	if err != nil {
		return nil, fmt.Errorf("select signing keys: %w", err)
	}
	keys := map[int32][]byte{}
	var id int32
	var sealed []byte
	if _, err := pgx.ForEachRow(rows, []any{&id, &sealed}, func() error {
		keys[id] = slices.Clone(sealed)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read signing keys: %w", err)
	}
	return keys, nil
}

// AddSealedKey implements callback.SecretStore.
func (s *Store) AddSealedKey(ctx context.Context, merchantID int32, sealed []byte, at time.Time) ([]byte, error) {
	if _, err := s.pool.Exec(ctx, `
		INSERT INTO signing_secrets (merchant_id, sealed, created_at) VALUES ($1, $2, $3)
		ON CONFLICT (merchant_id) DO NOTHING`, merchantID, sealed, at); err != nil {
		return nil, fmt.Errorf("insert signing key of merchant %d: %w", merchantID, err)
	}
	var stored []byte
	if err := s.pool.QueryRow(ctx, `SELECT sealed FROM signing_secrets WHERE merchant_id = $1`, merchantID).Scan(&stored); err != nil {
		return nil, fmt.Errorf("select signing key of merchant %d: %w", merchantID, err)
	}
	return stored, nil
}

// SigningSealedKeys implements callback.SecretStore: the current and the
// previous keys in one statement.
func (s *Store) SigningSealedKeys(ctx context.Context, merchantIDs []int32, now time.Time) (map[int32][]byte, map[int32][]byte, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT merchant_id, sealed, CASE WHEN previous_until > $2 THEN previous_sealed END FROM signing_secrets
		WHERE merchant_id = ANY($1)`, merchantIDs, now)
	if err != nil {
		return nil, nil, fmt.Errorf("select signing keys: %w", err)
	}
	cur, prev := map[int32][]byte{}, map[int32][]byte{}
	var id int32
	var sealed, previous []byte
	if _, err := pgx.ForEachRow(rows, []any{&id, &sealed, &previous}, func() error {
		cur[id] = slices.Clone(sealed)
		if previous != nil {
			prev[id] = slices.Clone(previous)
		}
		return nil
	}); err != nil {
		return nil, nil, fmt.Errorf("read signing keys: %w", err)
	}
	return cur, prev, nil
}

// ReplaceSealedKey implements callback.SecretStore.
func (s *Store) ReplaceSealedKey(ctx context.Context, merchantID int32, sealed []byte, at, keepUntil time.Time) error {
	var until *time.Time
	if keepUntil.After(at) {
		until = &keepUntil
	}
	if _, err := s.pool.Exec(ctx, `
		INSERT INTO signing_secrets (merchant_id, sealed, created_at) VALUES ($1, $2, $3)
		ON CONFLICT (merchant_id) DO UPDATE SET sealed = excluded.sealed, rotated_at = excluded.created_at,
			previous_sealed = CASE WHEN $4::timestamptz IS NULL THEN NULL ELSE signing_secrets.sealed END,
			previous_until = $4`,
		merchantID, sealed, at, until); err != nil {
		return fmt.Errorf("replace signing key of merchant %d: %w", merchantID, err)
	}
	return nil
}

// SealedKey is one merchant's signing key as stored, for the reseal job.
type SealedKey struct {
	MerchantID int32
	Sealed     []byte
}

// AllSealedKeys returns every merchant's sealed signing key (one row per
// merchant: read at once).
func (s *Store) AllSealedKeys(ctx context.Context) ([]SealedKey, error) {
	rows, err := s.pool.Query(ctx, `SELECT merchant_id, sealed FROM signing_secrets ORDER BY merchant_id`)
	if err != nil {
		return nil, fmt.Errorf("select signing keys: %w", err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowToStructByPos[SealedKey])
	if err != nil {
		return nil, fmt.Errorf("read signing keys: %w", err)
	}
	return keys, nil
}

// ResealKey stores sealed as the merchant's sealed signing key when the
// stored one is still old, and reports whether it did (false: it was
// rotated meanwhile). The key itself is unchanged, so its dates are too.
func (s *Store) ResealKey(ctx context.Context, merchantID int32, old, sealed []byte) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE signing_secrets SET sealed = $3 WHERE merchant_id = $1 AND sealed = $2`, merchantID, old, sealed)
	if err != nil {
		return false, fmt.Errorf("re-seal signing key of merchant %d: %w", merchantID, err)
	}
	return tag.RowsAffected() == 1, nil
}
