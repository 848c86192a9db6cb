package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/auth/internal/confirmation"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb"
	"github.com/paygate/paygate/services/internal/sensitive"
)

// Confirmations implements confirmation.Store on the tables of migration
// 0009 (confirmations, approval_requests, approval_policies,
// step_up_settings, proof_keys, approval_confirmations).
type Confirmations struct {
	pool *pgxpool.Pool
}

var (
	_ confirmation.Store = (*Confirmations)(nil)
	_ confirmation.Tx    = (*confirmTx)(nil)
)

// NewConfirmations returns the store over pool, whose search_path must
// select the schema.
func NewConfirmations(pool *pgxpool.Pool) *Confirmations { return &Confirmations{pool: pool} }

// StepUp implements confirmation.Store.
func (s *Confirmations) StepUp(ctx context.Context) (confirmation.Settings, bool, error) {
	var st confirmation.Settings
	err := s.pool.QueryRow(ctx, `SELECT scope, actions FROM step_up_settings`).Scan(&st.Scope, &st.Actions)
	if errors.Is(err, pgx.ErrNoRows) {
		return st, false, nil
	}
	if err != nil {
		return st, false, fmt.Errorf("select step-up settings: %w", err)
	}
	return st, true, nil
}

const policyColumns = `id, action, approver_permission, coalesce(min_amount::text, ''), currency, min_count`

func scanPolicy(row pgx.Row) (confirmation.Policy, error) {
	var p confirmation.Policy
	err := row.Scan(&p.ID, &p.Action, &p.ApproverPermission, &p.MinAmount, &p.Currency, &p.MinCount)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, apperr.NotFound("Approval policy not found.")
	}
	return p, err
}

// Policies implements confirmation.Store.
func (s *Confirmations) Policies(ctx context.Context) ([]confirmation.Policy, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+policyColumns+` FROM approval_policies ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("select approval policies: %w", err)
	}
	defer rows.Close()
	out := []confirmation.Policy{}
	for rows.Next() {
		p, err := scanPolicy(rows)
		if err != nil {
			return nil, fmt.Errorf("scan approval policy: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// InsertConfirmation implements confirmation.Store.
func (s *Confirmations) InsertConfirmation(ctx context.Context, r confirmation.Record) error {
	_, err := s.pool.Exec(ctx, `
		INSERT INTO confirmations (id, user_id, action, method, canonical, digest, nonce, kind, request_key_id,
		                           request_sealed, reason, approval_policy_id, approver_permission, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, nullif($12, 0), $13, $14, $15)`,
		r.ID, r.UserID, r.Action, r.Method, r.Canonical, r.Digest, r.Nonce, r.Kind, r.RequestKeyID,
		r.RequestSealed, r.Reason, r.PolicyID, r.ApproverPermission, r.CreatedAt, r.ExpiresAt)
	if err != nil {
		return fmt.Errorf("insert confirmation: %w", err)
	}
	// Answered or not, a confirmation is of no use a day after its expiry.
	if _, err := s.pool.Exec(ctx, `DELETE FROM confirmations WHERE expires_at < $1`, r.CreatedAt.Add(-24*time.Hour)); err != nil {
		return fmt.Errorf("purge confirmations: %w", err)
	}
	return nil
}

// Confirmation implements confirmation.Store.
func (s *Confirmations) Confirmation(ctx context.Context, id string) (confirmation.Record, error) {
	var (
		r        confirmation.Record
		policyID *int32
	)
	err := s.pool.QueryRow(ctx, `
		SELECT id::text, user_id, action, method, canonical, digest, nonce, kind, request_key_id, request_sealed,
		       reason, approval_policy_id, approver_permission, created_at, expires_at, used_at
		FROM confirmations WHERE id = $1`, id).
		Scan(&r.ID, &r.UserID, &r.Action, &r.Method, &r.Canonical, &r.Digest, &r.Nonce, &r.Kind, &r.RequestKeyID,
			&r.RequestSealed, &r.Reason, &policyID, &r.ApproverPermission, &r.CreatedAt, &r.ExpiresAt, &r.UsedAt)
	if errors.Is(err, pgx.ErrNoRows) || isInvalidText(err) {
		return r, apperr.NotFound(confirmation.MsgNotFound)
	}
	if err != nil {
		return r, fmt.Errorf("select confirmation: %w", err)
	}
	if policyID != nil {
		r.PolicyID = *policyID
	}
	return r, nil
}

// ProofKey implements confirmation.Store.
func (s *Confirmations) ProofKey(ctx context.Context, fresh func() (string, []byte, error)) (string, []byte, error) {
	var (
		keyID  string
		sealed []byte
	)
	err := s.pool.QueryRow(ctx, `SELECT key_id, sealed FROM proof_keys WHERE name = 'totp-proof'`).Scan(&keyID, &sealed)
	if err == nil {
		return keyID, sealed, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return "", nil, fmt.Errorf("select proof key: %w", err)
	}
	if keyID, sealed, err = fresh(); err != nil {
		return "", nil, err
	}
	if _, err := s.pool.Exec(ctx, `
		INSERT INTO proof_keys (name, key_id, sealed, created_at) VALUES ('totp-proof', $1, $2, now())
		ON CONFLICT (name) DO NOTHING`, keyID, sealed); err != nil {
		return "", nil, fmt.Errorf("insert proof key: %w", err)
	}
	// Another replica may have stored its key first: read the winner.
	err = s.pool.QueryRow(ctx, `SELECT key_id, sealed FROM proof_keys WHERE name = 'totp-proof'`).Scan(&keyID, &sealed)
	if err != nil {
		return "", nil, fmt.Errorf("select proof key: %w", err)
	}
	return keyID, sealed, nil
}

const requestColumns = `
	id, confirmation_id::text, requested_by, requested_by_username, action, method, canonical, digest,
	request_key_id, request_sealed, reason, requester_proof, approver_permission, coalesce(policy_id, 0),
	status, coalesce(decided_by, 0), decided_by_username, decided_at, outcome, approver_proof, expires_at, created_at`

func scanRequest(row pgx.Row) (confirmation.Request, error) {
	var (
		r                  confirmation.Request
		requester, approve []byte
	)
	err := row.Scan(&r.ID, &r.ConfirmationID, &r.RequestedBy, &r.RequestedByUsername, &r.Action, &r.Method, &r.Canonical,
		&r.Digest, &r.RequestKeyID, &r.RequestSealed, &r.Reason, &requester, &r.ApproverPermission, &r.PolicyID,
		&r.Status, &r.DecidedBy, &r.DecidedByUsername, &r.DecidedAt, &r.Outcome, &approve, &r.ExpiresAt, &r.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, apperr.NotFound(confirmation.MsgRequestNotFound)
	}
	if err != nil {
		return r, fmt.Errorf("scan approval request: %w", err)
	}
	if err := json.Unmarshal(requester, &r.RequesterProof); err != nil {
		return r, fmt.Errorf("decode requester proof of request %d: %w", r.ID, err)
	}
	if len(approve) > 0 {
		var p sensitive.Proof
		if err := json.Unmarshal(approve, &p); err != nil {
			return r, fmt.Errorf("decode approver proof of request %d: %w", r.ID, err)
		}
		r.ApproverProof = &p
	}
	return r, nil
}

// readStatus reads a pending request past its expiry as expired.
func readStatus(r confirmation.Request, now time.Time) confirmation.Request {
	r.Status = r.Effective(now)
	if r.Status == confirmation.StatusApproving {
		// Between the approver's decision and the service's answer.
		r.Status = confirmation.StatusPending
	}
	return r
}

// Requests implements confirmation.Store.
func (s *Confirmations) Requests(ctx context.Context, q confirmation.Query) ([]confirmation.Request, error) {
	sql := `SELECT ` + requestColumns + ` FROM approval_requests
		WHERE (requested_by = $1 OR (NOT $2::boolean AND approver_permission = ANY($3)))
		  AND ($4::bigint = 0 OR id < $4::bigint)
		  AND ($5 = '' OR action = $5)
		  AND ($8::text = ''
		       OR ($8 = 'pending' AND status IN ('pending', 'approving') AND NOT (status = 'pending' AND expires_at <= $7))
		       OR ($8 = 'expired' AND (status = 'expired' OR (status = 'pending' AND expires_at <= $7)))
		       OR ($8 NOT IN ('pending', 'expired') AND status = $8))`
	sql += ` ORDER BY id DESC LIMIT $6`
	perms := q.Permissions
	if perms == nil {
		perms = []string{}
	}
	rows, err := s.pool.Query(ctx, sql, q.CallerID, q.Mine, perms, q.BeforeID, q.Action, q.Limit, q.Now, q.Status)
	if err != nil {
		return nil, fmt.Errorf("select approval requests: %w", err)
	}
	defer rows.Close()
	out := []confirmation.Request{}
	for rows.Next() {
		r, err := scanRequest(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, readStatus(r, q.Now))
	}
	return out, rows.Err()
}

// Request implements confirmation.Store.
func (s *Confirmations) Request(ctx context.Context, id int64) (confirmation.Request, error) {
	r, err := scanRequest(s.pool.QueryRow(ctx, `SELECT `+requestColumns+` FROM approval_requests WHERE id = $1`, id))
	if err != nil {
		return r, err
	}
	return readStatus(r, time.Now()), nil
}

// CountPending implements confirmation.Store.
func (s *Confirmations) CountPending(ctx context.Context, callerID int64, perms []string, now time.Time) (int, error) {
	if perms == nil {
		perms = []string{}
	}
	var n int
	err := s.pool.QueryRow(ctx, `
		SELECT count(*) FROM approval_requests
		WHERE status = 'pending' AND expires_at > $3 AND requested_by <> $1 AND approver_permission = ANY($2)`,
		callerID, perms, now).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count pending approvals: %w", err)
	}
	return n, nil
}

// Tx implements confirmation.Store.
func (s *Confirmations) Tx(ctx context.Context, fn func(confirmation.Tx) error) error {
	return pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error { return fn(&confirmTx{tx: &tx{t: t}}) })
}

// confirmTx shares the outbox with tx.
type confirmTx struct {
	*tx
}

func (x *confirmTx) UseConfirmation(ctx context.Context, id string, userID int64, at time.Time) (bool, error) {
	tag, err := x.t.Exec(ctx, `UPDATE confirmations SET used_at = $3 WHERE id = $1 AND user_id = $2 AND used_at IS NULL`, id, userID, at)
	if err != nil {
		return false, fmt.Errorf("use confirmation: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

func (x *confirmTx) SetConfirmationProof(ctx context.Context, id string, p sensitive.Proof) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if _, err := x.t.Exec(ctx, `UPDATE confirmations SET proof = $2 WHERE id = $1`, id, b); err != nil {
		return fmt.Errorf("store confirmation proof: %w", err)
	}
	return nil
}

func (x *confirmTx) InsertRequest(ctx context.Context, r confirmation.Request) (confirmation.Request, error) {
	proof, err := json.Marshal(r.RequesterProof)
	if err != nil {
		return r, err
	}
	err = x.t.QueryRow(ctx, `
		INSERT INTO approval_requests (confirmation_id, requested_by, requested_by_username, action, method, canonical, digest,
		    request_key_id, request_sealed, reason, requester_proof, approver_permission, policy_id, status, expires_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, nullif($13, 0), 'pending', $14, $15)
		RETURNING id`,
		r.ConfirmationID, r.RequestedBy, r.RequestedByUsername, r.Action, r.Method, r.Canonical, r.Digest,
		r.RequestKeyID, r.RequestSealed, r.Reason, proof, r.ApproverPermission, r.PolicyID, r.ExpiresAt, r.CreatedAt).Scan(&r.ID)
	if err != nil {
		return r, fmt.Errorf("insert approval request: %w", err)
	}
	return r, nil
}

func (x *confirmTx) RequestForUpdate(ctx context.Context, id int64) (confirmation.Request, error) {
	return scanRequest(x.t.QueryRow(ctx, `SELECT `+requestColumns+` FROM approval_requests WHERE id = $1 FOR UPDATE`, id))
}

func (x *confirmTx) SetStatus(ctx context.Context, id int64, from, to string, d confirmation.Decision) (bool, error) {
	var proof []byte
	if d.Proof != nil {
		var err error
		if proof, err = json.Marshal(d.Proof); err != nil {
			return false, err
		}
	}
	tag, err := x.t.Exec(ctx, `
		UPDATE approval_requests
		SET status = $3, decided_by = nullif($4, 0), decided_by_username = $5, decided_at = $6, outcome = $7,
		    approver_proof = coalesce($8, approver_proof)
		WHERE id = $1 AND status = $2`, id, from, to, d.By, d.ByUsername, d.At, d.Outcome, proof)
	if err != nil {
		return false, fmt.Errorf("set status of approval request %d: %w", id, err)
	}
	return tag.RowsAffected() == 1, nil
}

func (x *confirmTx) ExpirePending(ctx context.Context, now time.Time) ([]confirmation.Request, error) {
	rows, err := x.t.Query(ctx, `
		UPDATE approval_requests SET status = 'expired', decided_at = $1
		WHERE status = 'pending' AND expires_at <= $1
		RETURNING `+requestColumns, now)
	if err != nil {
		return nil, fmt.Errorf("expire approval requests: %w", err)
	}
	defer rows.Close()
	var out []confirmation.Request
	for rows.Next() {
		r, err := scanRequest(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (x *confirmTx) UseJTI(ctx context.Context, jti string, at time.Time) (bool, error) {
	tag, err := x.t.Exec(ctx, `INSERT INTO approval_confirmations (jti, used_at) VALUES ($1, $2) ON CONFLICT DO NOTHING`, jti, at)
	if err != nil {
		return false, fmt.Errorf("record confirmation %s: %w", jti, err)
	}
	return tag.RowsAffected() == 1, nil
}

func (x *confirmTx) PutStepUp(ctx context.Context, st confirmation.Settings, by int64, at time.Time) error {
	_, err := x.t.Exec(ctx, `
		INSERT INTO step_up_settings (id, scope, actions, updated_at, updated_by) VALUES (true, $1, $2, $3, $4)
		ON CONFLICT (id) DO UPDATE SET scope = $1, actions = $2, updated_at = $3, updated_by = $4`, st.Scope, st.Actions, at, by)
	if err != nil {
		return fmt.Errorf("store step-up settings: %w", err)
	}
	return nil
}

func (x *confirmTx) InsertPolicy(ctx context.Context, p confirmation.Policy, by int64, at time.Time) (confirmation.Policy, error) {
	return scanPolicy(x.t.QueryRow(ctx, `
		INSERT INTO approval_policies (action, approver_permission, min_amount, currency, min_count, created_at, created_by)
		VALUES ($1, $2, nullif($3, '')::numeric, $4, $5, $6, $7) RETURNING `+policyColumns,
		p.Action, p.ApproverPermission, p.MinAmount, p.Currency, p.MinCount, at, by))
}

func (x *confirmTx) UpdatePolicy(ctx context.Context, p confirmation.Policy) (confirmation.Policy, error) {
	old, err := scanPolicy(x.t.QueryRow(ctx, `SELECT `+policyColumns+` FROM approval_policies WHERE id = $1 FOR UPDATE`, p.ID))
	if err != nil {
		return old, err
	}
	_, err = x.t.Exec(ctx, `
		UPDATE approval_policies SET action = $2, approver_permission = $3, min_amount = nullif($4, '')::numeric,
		    currency = $5, min_count = $6
		WHERE id = $1`, p.ID, p.Action, p.ApproverPermission, p.MinAmount, p.Currency, p.MinCount)
	if err != nil {
		return old, fmt.Errorf("update approval policy %d: %w", p.ID, err)
	}
	return old, nil
}

func (x *confirmTx) DeletePolicy(ctx context.Context, id int32) (confirmation.Policy, error) {
	return scanPolicy(x.t.QueryRow(ctx, `DELETE FROM approval_policies WHERE id = $1 RETURNING `+policyColumns, id))
}
