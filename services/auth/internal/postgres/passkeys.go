package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/auth/internal/passkey"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Passkeys implements passkey.Store over the tables of migration 0004.
type Passkeys struct {
	pool *pgxpool.Pool
}

var (
	_ passkey.Store = (*Passkeys)(nil)
	_ passkey.Tx    = (*passkeyTx)(nil)
)

// NewPasskeys returns a passkey store over pool, whose search_path must
// select the schema.
func NewPasskeys(pool *pgxpool.Pool) *Passkeys { return &Passkeys{pool: pool} }

// UserHandle implements passkey.Store.
func (s *Passkeys) UserHandle(ctx context.Context, userID int64, newHandle []byte) ([]byte, error) {
	if newHandle != nil {
		if _, err := s.pool.Exec(ctx, `
			INSERT INTO webauthn_user_handles (user_id, handle) VALUES ($1, $2)
			ON CONFLICT (user_id) DO NOTHING`, userID, newHandle); err != nil {
			if code, _, ok := pgdb.ConstraintViolation(err); ok && code == "23503" {
				return nil, apperr.New(apperr.KindNotFound, err, "User not found.")
			}
			return nil, fmt.Errorf("insert user handle of user %d: %w", userID, err)
		}
	}
	var handle []byte
	err := s.pool.QueryRow(ctx, `SELECT handle FROM webauthn_user_handles WHERE user_id = $1`, userID).Scan(&handle)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, apperr.New(apperr.KindNotFound, err, "User handle not found.")
	}
	if err != nil {
		return nil, fmt.Errorf("select user handle of user %d: %w", userID, err)
	}
	return handle, nil
}

// UserIDByHandle implements passkey.Store.
func (s *Passkeys) UserIDByHandle(ctx context.Context, handle []byte) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `SELECT user_id FROM webauthn_user_handles WHERE handle = $1`, handle).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, apperr.New(apperr.KindNotFound, err, "User handle not found.")
	}
	if err != nil {
		return 0, fmt.Errorf("select user by handle: %w", err)
	}
	return id, nil
}

const credentialColumns = `id, user_id, credential_id, public_key, attestation_type, attestation_fmt, aaguid,
	sign_count, transports, user_present, user_verified, backup_eligible, backup_state,
	description, created_at, last_used_at`

func scanCredential(row pgx.Row) (passkey.Credential, error) {
	var (
		c     passkey.Credential
		count int64
	)
	err := row.Scan(&c.ID, &c.UserID, &c.CredentialID, &c.PublicKey, &c.AttestationType, &c.AttestationFormat,
		&c.AAGUID, &count, &c.Transports, &c.Flags.UserPresent, &c.Flags.UserVerified, &c.Flags.BackupEligible,
		&c.Flags.BackupState, &c.Description, &c.CreatedAt, &c.LastUsedAt)
	c.SignCount = uint32(count) // the column's check keeps it within uint32
	return c, err
}

// Credentials implements passkey.Store.
func (s *Passkeys) Credentials(ctx context.Context, userID int64) ([]passkey.Credential, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+credentialColumns+` FROM webauthn_credentials
		WHERE user_id = $1 ORDER BY created_at, id`, userID)
	if err != nil {
		return nil, fmt.Errorf("select passkeys of user %d: %w", userID, err)
	}
	defer rows.Close()
	var out []passkey.Credential
	for rows.Next() {
		c, err := scanCredential(rows)
		if err != nil {
			return nil, fmt.Errorf("scan passkey: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("select passkeys of user %d: %w", userID, err)
	}
	return out, nil
}

// CredentialByCredentialID implements passkey.Store.
func (s *Passkeys) CredentialByCredentialID(ctx context.Context, credentialID []byte) (passkey.Credential, error) {
	c, err := scanCredential(s.pool.QueryRow(ctx, `SELECT `+credentialColumns+` FROM webauthn_credentials
		WHERE credential_id = $1`, credentialID))
	if errors.Is(err, pgx.ErrNoRows) {
		return c, apperr.New(apperr.KindNotFound, err, passkey.MsgNotFound)
	}
	if err != nil {
		return c, fmt.Errorf("select passkey by credential id: %w", err)
	}
	return c, nil
}

// SaveChallenge implements passkey.Store.
func (s *Passkeys) SaveChallenge(ctx context.Context, c passkey.Challenge, now time.Time) error {
	var userID *int64
	if c.UserID != 0 {
		userID = &c.UserID
	}
	batch := &pgx.Batch{}
	batch.Queue(`DELETE FROM webauthn_challenges WHERE expires_at < $1`, now)
	batch.Queue(`
		INSERT INTO webauthn_challenges (challenge, kind, user_id, session_data, display_name, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6)`, c.Challenge, string(c.Kind), userID, c.SessionData, c.DisplayName, c.ExpiresAt)
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("save %s challenge: %w", c.Kind, err)
	}
	return nil
}

// ConsumeChallenge implements passkey.Store.
func (s *Passkeys) ConsumeChallenge(ctx context.Context, challenge string, kind passkey.Kind, userID int64) (passkey.Challenge, error) {
	c := passkey.Challenge{Challenge: challenge, Kind: kind}
	var owner *int64
	err := s.pool.QueryRow(ctx, `
		DELETE FROM webauthn_challenges
		WHERE challenge = $1 AND kind = $2 AND user_id IS NOT DISTINCT FROM $3
		RETURNING user_id, session_data, display_name, expires_at`,
		challenge, string(kind), nullID(userID)).Scan(&owner, &c.SessionData, &c.DisplayName, &c.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, apperr.New(apperr.KindNotFound, err, "Challenge not found.")
	}
	if err != nil {
		return c, fmt.Errorf("consume %s challenge: %w", kind, err)
	}
	if owner != nil {
		c.UserID = *owner
	}
	return c, nil
}

func nullID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

// RecordUse implements passkey.Store.
func (s *Passkeys) RecordUse(ctx context.Context, id int64, signCount uint32, f passkey.Flags, at time.Time) (bool, error) {
	tag, err := s.pool.Exec(ctx, `
		UPDATE webauthn_credentials
		SET sign_count = $2, user_present = $3, user_verified = $4, backup_eligible = $5, backup_state = $6,
		    last_used_at = $7
		WHERE id = $1 AND (sign_count < $2 OR (sign_count = 0 AND $2 = 0))`,
		id, int64(signCount), f.UserPresent, f.UserVerified, f.BackupEligible, f.BackupState, at)
	if err != nil {
		return false, fmt.Errorf("record use of passkey %d: %w", id, err)
	}
	return tag.RowsAffected() == 1, nil
}

// Tx implements passkey.Store.
func (s *Passkeys) Tx(ctx context.Context, fn func(passkey.Tx) error) error {
	return pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error { return fn(&passkeyTx{t: t}) })
}

// passkeyTx implements passkey.Tx inside one pgx transaction.
type passkeyTx struct {
	t pgx.Tx
}

func (x *passkeyTx) InsertCredential(ctx context.Context, c passkey.Credential) (passkey.Credential, error) {
	transports := c.Transports
	if transports == nil {
		transports = []string{}
	}
	err := x.t.QueryRow(ctx, `
		INSERT INTO webauthn_credentials (user_id, credential_id, public_key, attestation_type, attestation_fmt,
			aaguid, sign_count, transports, user_present, user_verified, backup_eligible, backup_state, description)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
		RETURNING id, created_at`,
		c.UserID, c.CredentialID, c.PublicKey, c.AttestationType, c.AttestationFormat, c.AAGUID,
		int64(c.SignCount), transports, c.Flags.UserPresent, c.Flags.UserVerified, c.Flags.BackupEligible,
		c.Flags.BackupState, c.Description).Scan(&c.ID, &c.CreatedAt)
	if code, _, ok := pgdb.ConstraintViolation(err); ok && code == "23505" {
		return c, apperr.New(apperr.KindConflict, err, passkey.MsgAlreadyRegistered)
	}
	if err != nil {
		return c, fmt.Errorf("insert passkey of user %d: %w", c.UserID, err)
	}
	return c, nil
}

func (x *passkeyTx) DeleteCredential(ctx context.Context, userID, id int64) (passkey.Credential, error) {
	c, err := scanCredential(x.t.QueryRow(ctx, `
		DELETE FROM webauthn_credentials WHERE id = $1 AND user_id = $2
		RETURNING `+credentialColumns, id, userID))
	if errors.Is(err, pgx.ErrNoRows) {
		return c, apperr.New(apperr.KindNotFound, err, passkey.MsgNotFound)
	}
	if err != nil {
		return c, fmt.Errorf("delete passkey %d: %w", id, err)
	}
	return c, nil
}

func (x *passkeyTx) Publish(ctx context.Context, event proto.Message) error {
	return (&tx{t: x.t}).Publish(ctx, event)
}
