package stepup

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Table is the DDL of the used_confirmations table: every confirmation a
// service applied, with its proofs (docs/contracts-approvals.md). A service's
// migration creates it with exactly this text.
const Table = `CREATE TABLE used_confirmations (
    id text PRIMARY KEY,
    user_id bigint NOT NULL,
    action text NOT NULL,
    canonical text NOT NULL,
    digest text NOT NULL,
    proof text NOT NULL DEFAULT '',
    proofs jsonb NOT NULL DEFAULT '[]',
    approval_request_id bigint,
    expires_at timestamptz,
    used_at timestamptz NOT NULL DEFAULT now()
);
`

// PostgresStore is a Store on the used_confirmations table.
type PostgresStore struct {
	pool *pgxpool.Pool
}

// NewPostgresStore returns the Store on pool's used_confirmations table.
func NewPostgresStore(pool *pgxpool.Pool) *PostgresStore { return &PostgresStore{pool: pool} }

// Record implements Store.
func (s *PostgresStore) Record(ctx context.Context, u Use) error {
	proofs, err := json.Marshal(u.Proofs)
	if err != nil {
		return fmt.Errorf("marshal proofs: %w", err)
	}
	if u.Proofs == nil {
		proofs = []byte("[]")
	}
	var apr *int64
	if u.ApprovalRequestID != 0 {
		apr = &u.ApprovalRequestID
	}
	var exp *time.Time
	if !u.ExpiresAt.IsZero() {
		exp = &u.ExpiresAt
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO used_confirmations
		(id, user_id, action, canonical, digest, proof, proofs, approval_request_id, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING`,
		u.ID, u.UserID, u.Action, u.Canonical, u.Digest, u.Proof, string(proofs), apr, exp)
	if err != nil {
		return fmt.Errorf("insert used confirmation: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrUsed
	}
	return nil
}

// Forget implements Store.
func (s *PostgresStore) Forget(ctx context.Context, id string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM used_confirmations WHERE id = $1`, id); err != nil {
		return fmt.Errorf("delete used confirmation: %w", err)
	}
	return nil
}
