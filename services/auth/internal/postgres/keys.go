package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/auth/internal/identity"
	"github.com/paygate/paygate/services/internal/apperr"
)

// SigningKeys returns the live signing keys (published, not retired), the
// one that signs first: the live key activated last, then the others, newest
// first. It creates an activated key when no live key is activated (a new
// schema, or every activated key retired): replicas starting together agree
// on one key, as the insert takes an advisory lock and re-checks.
func (s *Store) SigningKeys(ctx context.Context) ([]identity.SigningKey, error) {
	keys, err := s.liveKeys(ctx)
	if err != nil || (len(keys) > 0 && keys[0].Signing) {
		return plainKeys(keys), err
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
		INSERT INTO signing_keys (kid, private_key, activated_at)
		SELECT $1, $2, now() WHERE NOT EXISTS (
			SELECT 1 FROM signing_keys WHERE retired_at IS NULL AND activated_at IS NOT NULL)`,
		gen.ID, []byte(gen.Private)); err != nil {
		return nil, fmt.Errorf("insert signing key: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("commit signing key: %w", err)
	}
	keys, err = s.liveKeys(ctx)
	return plainKeys(keys), err
}

func plainKeys(keys []identity.SigningKeyInfo) []identity.SigningKey {
	out := make([]identity.SigningKey, len(keys))
	for i, k := range keys {
		out[i] = k.SigningKey
	}
	return out
}

// liveKeys orders the live keys as SigningKeys returns them, and marks the
// first as signing when it is activated.
func (s *Store) liveKeys(ctx context.Context) ([]identity.SigningKeyInfo, error) {
	keys, err := s.selectKeys(ctx, `WHERE retired_at IS NULL`)
	if err != nil {
		return nil, err
	}
	if len(keys) > 0 && !keys[0].ActivatedAt.IsZero() {
		keys[0].Signing = true
	}
	return keys, nil
}

const keyOrder = ` ORDER BY retired_at IS NOT NULL, activated_at DESC NULLS LAST, created_at DESC, kid`

func (s *Store) selectKeys(ctx context.Context, where string) ([]identity.SigningKeyInfo, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT kid, private_key, created_at, activated_at, retired_at FROM signing_keys `+where+keyOrder)
	if err != nil {
		return nil, fmt.Errorf("select signing keys: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (identity.SigningKeyInfo, error) {
		var k identity.SigningKeyInfo
		var priv []byte
		var activated, retired *time.Time
		err := r.Scan(&k.ID, &priv, &k.CreatedAt, &activated, &retired)
		k.Private = priv
		if activated != nil {
			k.ActivatedAt = *activated
		}
		if retired != nil {
			k.RetiredAt = *retired
		}
		return k, err
	})
}

// ListSigningKeys returns every signing key, retired ones too, in the order
// of SigningKeys (retired ones last), without their private halves.
func (s *Store) ListSigningKeys(ctx context.Context) ([]identity.SigningKeyInfo, error) {
	keys, err := s.selectKeys(ctx, "")
	if err != nil {
		return nil, err
	}
	if len(keys) > 0 && keys[0].RetiredAt.IsZero() && !keys[0].ActivatedAt.IsZero() {
		keys[0].Signing = true
	}
	for i := range keys {
		keys[i].Private = nil
	}
	return keys, nil
}

// AddSigningKey adds a new key that is published but does not sign until
// ActivateSigningKey, and returns its id.
func (s *Store) AddSigningKey(ctx context.Context) (string, error) {
	gen, err := identity.GenerateSigningKey()
	if err != nil {
		return "", err
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO signing_keys (kid, private_key) VALUES ($1, $2)`, gen.ID, []byte(gen.Private)); err != nil {
		return "", fmt.Errorf("insert signing key: %w", err)
	}
	return gen.ID, nil
}

// ActivateSigningKey makes the live key kid the signing one (the other live
// keys stay published and keep verifying). Not found when kid is not a live
// key.
func (s *Store) ActivateSigningKey(ctx context.Context, kid string) error {
	tag, err := s.pool.Exec(ctx, `
		UPDATE signing_keys SET activated_at = greatest(now(), (SELECT max(activated_at) FROM signing_keys) + interval '1 microsecond')
		WHERE kid = $1 AND retired_at IS NULL`, kid)
	if err != nil {
		return fmt.Errorf("activate signing key %s: %w", kid, err)
	}
	if tag.RowsAffected() == 0 {
		return apperr.NotFound("There is no live signing key %q (auth signing-keys list shows them).", kid)
	}
	return nil
}

// RetireSigningKey stops publishing the key kid: tokens it signed are no
// longer accepted. Not found when kid is not a live key; a conflict when kid
// is the key that signs (activate another first).
func (s *Store) RetireSigningKey(ctx context.Context, kid string) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('auth.signing_keys'))`); err != nil {
		return fmt.Errorf("lock signing keys: %w", err)
	}
	var signing string
	err = tx.QueryRow(ctx, `SELECT kid FROM signing_keys WHERE retired_at IS NULL AND activated_at IS NOT NULL`+keyOrder+` LIMIT 1`).Scan(&signing)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("select the signing key: %w", err)
	}
	if signing == kid {
		return apperr.Conflict("Key %q signs the access tokens: activate another key first, and retire this one once the tokens it signed have expired.", kid)
	}
	tag, err := tx.Exec(ctx, `UPDATE signing_keys SET retired_at = now() WHERE kid = $1 AND retired_at IS NULL`, kid)
	if err != nil {
		return fmt.Errorf("retire signing key %s: %w", kid, err)
	}
	if tag.RowsAffected() == 0 {
		return apperr.NotFound("There is no live signing key %q (auth signing-keys list shows them).", kid)
	}
	return tx.Commit(ctx)
}
