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

// ReplaceSealedKey implements callback.SecretStore.
func (s *Store) ReplaceSealedKey(ctx context.Context, merchantID int32, sealed []byte, at time.Time) error {
	if _, err := s.pool.Exec(ctx, `
		INSERT INTO signing_secrets (merchant_id, sealed, created_at) VALUES ($1, $2, $3)
		ON CONFLICT (merchant_id) DO UPDATE SET sealed = excluded.sealed, rotated_at = excluded.created_at`,
		merchantID, sealed, at); err != nil {
		return fmt.Errorf("replace signing key of merchant %d: %w", merchantID, err)
	}
	return nil
}
