package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/auth/internal/identity"
	"github.com/paygate/paygate/services/auth/internal/secondfactor"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb"
)

var (
	_ secondfactor.Store     = (*Store)(nil)
	_ secondfactor.Tx        = (*tx)(nil)
	_ identity.SettingsTx    = (*tx)(nil)
	_ identity.SettingsStore = (*Store)(nil)
)

// SecondFactorStatus implements secondfactor.Store.
func (s *Store) SecondFactorStatus(ctx context.Context, userID int64) (secondfactor.Status, error) {
	var (
		st        secondfactor.Status
		confirmed *time.Time
	)
	err := s.pool.QueryRow(ctx, `
		SELECT (SELECT confirmed_at FROM user_totp WHERE user_id = $1),
		       (SELECT count(*) FROM user_recovery_codes WHERE user_id = $1 AND used_at IS NULL)`, userID).
		Scan(&confirmed, &st.RecoveryCodesLeft)
	if err != nil {
		return secondfactor.Status{}, fmt.Errorf("select second factor of user %d: %w", userID, err)
	}
	if confirmed != nil {
		st.Enrolled, st.EnrolledAt = true, *confirmed
	}
	return st, nil
}

// SecondFactorTx implements secondfactor.Store.
func (s *Store) SecondFactorTx(ctx context.Context, fn func(secondfactor.Tx) error) error {
	return pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error { return fn(&tx{t: t}) })
}

// KeyForUpdate implements secondfactor.Tx.
func (x *tx) KeyForUpdate(ctx context.Context, userID int64) (secondfactor.Key, error) {
	k := secondfactor.Key{UserID: userID}
	err := x.t.QueryRow(ctx, `
		SELECT key_id, secret_sealed, confirmed_at, last_step FROM user_totp WHERE user_id = $1 FOR UPDATE`, userID).
		Scan(&k.KeyID, &k.Sealed, &k.ConfirmedAt, &k.LastStep)
	if errors.Is(err, pgx.ErrNoRows) {
		return secondfactor.Key{}, apperr.NotFound("No second factor is enrolled.")
	}
	if err != nil {
		return secondfactor.Key{}, fmt.Errorf("select totp key of user %d: %w", userID, err)
	}
	return k, nil
}

// PutPendingKey implements secondfactor.Tx.
func (x *tx) PutPendingKey(ctx context.Context, userID int64, keyID string, sealed []byte, at time.Time) error {
	if _, err := x.t.Exec(ctx, `
		INSERT INTO user_totp (user_id, key_id, secret_sealed, created_at)
		VALUES ($1, $2, $3, $4)
		ON CONFLICT (user_id) DO UPDATE
		SET key_id = excluded.key_id, secret_sealed = excluded.secret_sealed, created_at = excluded.created_at,
		    confirmed_at = NULL, last_step = 0
		WHERE user_totp.confirmed_at IS NULL`, userID, keyID, sealed, at); err != nil {
		return fmt.Errorf("store pending totp key of user %d: %w", userID, err)
	}
	return nil
}

// ConfirmKey implements secondfactor.Tx.
func (x *tx) ConfirmKey(ctx context.Context, userID, step int64, at time.Time) error {
	tag, err := x.t.Exec(ctx, `
		UPDATE user_totp SET confirmed_at = $2, last_step = $3 WHERE user_id = $1 AND confirmed_at IS NULL`, userID, at, step)
	if err != nil {
		return fmt.Errorf("confirm totp key of user %d: %w", userID, err)
	}
	if tag.RowsAffected() == 0 {
		return apperr.Conflict("Start the enrolment first.")
	}
	return nil
}

// UseStep implements secondfactor.Tx.
func (x *tx) UseStep(ctx context.Context, userID, step int64) (bool, error) {
	tag, err := x.t.Exec(ctx, `
		UPDATE user_totp SET last_step = $2
		WHERE user_id = $1 AND confirmed_at IS NOT NULL AND last_step < $2`, userID, step)
	if err != nil {
		return false, fmt.Errorf("use totp step of user %d: %w", userID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// DeleteSecondFactor implements secondfactor.Tx.
func (x *tx) DeleteSecondFactor(ctx context.Context, userID int64) error {
	if _, err := x.t.Exec(ctx, `DELETE FROM user_recovery_codes WHERE user_id = $1`, userID); err != nil {
		return fmt.Errorf("delete recovery codes of user %d: %w", userID, err)
	}
	if _, err := x.t.Exec(ctx, `DELETE FROM user_totp WHERE user_id = $1`, userID); err != nil {
		return fmt.Errorf("delete totp key of user %d: %w", userID, err)
	}
	return nil
}

// ReplaceRecoveryCodes implements secondfactor.Tx.
func (x *tx) ReplaceRecoveryCodes(ctx context.Context, userID int64, hashes [][]byte, at time.Time) error {
	if _, err := x.t.Exec(ctx, `DELETE FROM user_recovery_codes WHERE user_id = $1`, userID); err != nil {
		return fmt.Errorf("delete recovery codes of user %d: %w", userID, err)
	}
	if _, err := x.t.Exec(ctx, `
		INSERT INTO user_recovery_codes (user_id, code_hash, created_at)
		SELECT $1, unnest($2::bytea[]), $3`, userID, hashes, at); err != nil {
		return fmt.Errorf("insert recovery codes of user %d: %w", userID, err)
	}
	return nil
}

// UseRecoveryCode implements secondfactor.Tx.
func (x *tx) UseRecoveryCode(ctx context.Context, userID int64, hash []byte, at time.Time) (bool, error) {
	tag, err := x.t.Exec(ctx, `
		UPDATE user_recovery_codes SET used_at = $3
		WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL`, userID, hash, at)
	if err != nil {
		return false, fmt.Errorf("use recovery code of user %d: %w", userID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// RecoveryCodesLeft implements secondfactor.Tx.
func (x *tx) RecoveryCodesLeft(ctx context.Context, userID int64) (int, error) {
	var n int
	if err := x.t.QueryRow(ctx, `
		SELECT count(*) FROM user_recovery_codes WHERE user_id = $1 AND used_at IS NULL`, userID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count recovery codes of user %d: %w", userID, err)
	}
	return n, nil
}

// InsertChallenge implements secondfactor.Tx.
func (x *tx) InsertChallenge(ctx context.Context, c secondfactor.Challenge) error {
	if _, err := x.t.Exec(ctx, `
		INSERT INTO second_factor_challenges (challenge_hash, user_id, step, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5)`, c.Hash, c.UserID, string(c.Step), c.CreatedAt, c.ExpiresAt); err != nil {
		return fmt.Errorf("insert second factor challenge: %w", err)
	}
	return nil
}

// ChallengeForUpdate implements secondfactor.Tx.
func (x *tx) ChallengeForUpdate(ctx context.Context, hash []byte) (secondfactor.Challenge, error) {
	c := secondfactor.Challenge{Hash: hash}
	var step string
	err := x.t.QueryRow(ctx, `
		SELECT user_id, step, created_at, expires_at, used_at, wrong_codes
		FROM second_factor_challenges WHERE challenge_hash = $1 FOR UPDATE`, hash).
		Scan(&c.UserID, &step, &c.CreatedAt, &c.ExpiresAt, &c.UsedAt, &c.WrongCodes)
	if errors.Is(err, pgx.ErrNoRows) {
		return secondfactor.Challenge{}, apperr.NotFound("Challenge not found.")
	}
	if err != nil {
		return secondfactor.Challenge{}, fmt.Errorf("select second factor challenge: %w", err)
	}
	c.Step = identity.Step(step)
	return c, nil
}

// SpendChallenge implements secondfactor.Tx.
func (x *tx) SpendChallenge(ctx context.Context, hash []byte, at time.Time) error {
	if _, err := x.t.Exec(ctx, `
		UPDATE second_factor_challenges SET used_at = $2 WHERE challenge_hash = $1 AND used_at IS NULL`, hash, at); err != nil {
		return fmt.Errorf("spend second factor challenge: %w", err)
	}
	return nil
}

// CountWrongCode implements secondfactor.Tx.
func (x *tx) CountWrongCode(ctx context.Context, hash []byte) (int, error) {
	var n int
	if err := x.t.QueryRow(ctx, `
		UPDATE second_factor_challenges SET wrong_codes = wrong_codes + 1 WHERE challenge_hash = $1
		RETURNING wrong_codes`, hash).Scan(&n); err != nil {
		return 0, fmt.Errorf("count wrong code of challenge: %w", err)
	}
	return n, nil
}

const settingsColumns = `require_second_factor, session_idle_timeout_seconds, session_max_lifetime_seconds`

func scanSettings(row pgx.Row) (identity.Settings, bool, error) {
	var (
		req        string
		idle, life int64
	)
	err := row.Scan(&req, &idle, &life)
	if errors.Is(err, pgx.ErrNoRows) {
		return identity.Settings{}, false, nil
	}
	if err != nil {
		return identity.Settings{}, false, fmt.Errorf("select auth settings: %w", err)
	}
	return settingsOf(req, idle, life), true, nil
}

// settingsOf makes settings of their stored columns.
func settingsOf(req string, idle, life int64) identity.Settings {
	return identity.Settings{
		RequireSecondFactor: identity.Requirement(req),
		IdleTimeout:         time.Duration(idle) * time.Second,
		MaxLifetime:         time.Duration(life) * time.Second,
	}
}

// AuthSettings implements identity.SettingsStore.
func (s *Store) AuthSettings(ctx context.Context) (identity.Settings, bool, error) {
	return scanSettings(s.pool.QueryRow(ctx, `SELECT `+settingsColumns+` FROM auth_settings WHERE id = 1`))
}

// AuthSettingsForUpdate implements identity.SettingsTx.
func (x *tx) AuthSettingsForUpdate(ctx context.Context) (identity.Settings, bool, error) {
	// Lock the row, or (while there is none) every writer of the settings.
	if _, err := x.t.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('auth_settings'))`); err != nil {
		return identity.Settings{}, false, fmt.Errorf("lock auth settings: %w", err)
	}
	return scanSettings(x.t.QueryRow(ctx, `SELECT `+settingsColumns+` FROM auth_settings WHERE id = 1 FOR UPDATE`))
}

// PutAuthSettings implements identity.SettingsTx.
func (x *tx) PutAuthSettings(ctx context.Context, st identity.Settings, at time.Time) error {
	if _, err := x.t.Exec(ctx, `
		INSERT INTO auth_settings (id, `+settingsColumns+`, updated_at) VALUES (1, $1, $2, $3, $4)
		ON CONFLICT (id) DO UPDATE SET require_second_factor = excluded.require_second_factor,
		    session_idle_timeout_seconds = excluded.session_idle_timeout_seconds,
		    session_max_lifetime_seconds = excluded.session_max_lifetime_seconds, updated_at = excluded.updated_at`,
		string(st.RequireSecondFactor), int64(st.IdleTimeout.Seconds()), int64(st.MaxLifetime.Seconds()), at); err != nil {
		return fmt.Errorf("store auth settings: %w", err)
	}
	return nil
}
