// Package postgres stores the auth service's users, sessions, refresh tokens
// and signing keys in Postgres (schema "auth"), and carries its migrations.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/auth/internal/identity"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Migrations are the auth schema's golang-migrate files.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations returns the migration files rooted at their folder.
func Migrations() fs.FS { return pgdb.EmbeddedMigrations(migrationFiles, "migrations") }

// Schema is the Postgres schema the auth service owns.
const Schema = "auth"

// Store implements identity.Store and identity.Seeder.
type Store struct {
	pool   *pgxpool.Pool
	counts *lru.Cache[string, countEntry]
}

var (
	_ identity.Store  = (*Store)(nil)
	_ identity.Seeder = (*Store)(nil)
	_ identity.Tx     = (*tx)(nil)
)

// New returns a Store over pool, whose search_path must select the schema.
func New(pool *pgxpool.Pool) *Store {
	counts, _ := lru.New[string, countEntry](maxCount) // errs only for a size ≤ 0
	return &Store{pool: pool, counts: counts}
}

// userColumns are a user's columns with their claims, which migration 0012's
// triggers keep on the row (TestUserClaimsFollowTheirSources compares them
// with the claims computed from the tables they come from).
const userColumns = `
	u.id, u.username, u.password_hash, u.is_temporary_password, u.is_ip_restricted, u.is_disabled,
	u.claim_roles, u.claim_permissions, u.claim_merchant_ids, u.claim_global`

func scanUser(row pgx.Row) (identity.User, error) {
	var u identity.User
	err := row.Scan(&u.ID, &u.Username, &u.PasswordHash, &u.IsTemporaryPassword, &u.IsIPRestricted, &u.IsDisabled,
		&u.Roles, &u.Permissions, &u.MerchantIDs, &u.Global)
	if errors.Is(err, pgx.ErrNoRows) {
		return identity.User{}, apperr.NotFound("User not found.")
	}
	return u, err
}

// UserByUsername implements identity.Store.
func (s *Store) UserByUsername(ctx context.Context, username string) (identity.User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users u WHERE lower(u.username) = lower($1)`, username))
	if err != nil && apperr.KindOf(err) != apperr.KindNotFound {
		return u, fmt.Errorf("select user by username: %w", err)
	}
	return u, err
}

// UserByID implements identity.Store.
func (s *Store) UserByID(ctx context.Context, id int64) (identity.User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users u WHERE u.id = $1`, id))
	if err != nil && apperr.KindOf(err) != apperr.KindNotFound {
		return u, fmt.Errorf("select user %d: %w", id, err)
	}
	return u, err
}

// Session implements identity.Store.
func (s *Store) Session(ctx context.Context, id string) (identity.Session, error) {
	return selectSession(ctx, s.pool, id, "")
}

const sessionColumns = `id::text, user_id, ip, user_agent, created_at, last_seen_at, refresh_expires_at, revoked_at`

func selectSession(ctx context.Context, q pgdb.Querier, id, suffix string) (identity.Session, error) {
	var sess identity.Session
	err := q.QueryRow(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE id = $1`+suffix, id).Scan(
		&sess.ID, &sess.UserID, &sess.IP, &sess.UserAgent, &sess.CreatedAt, &sess.LastSeenAt,
		&sess.RefreshExpiresAt, &sess.RevokedAt)
	if errors.Is(err, pgx.ErrNoRows) || isInvalidText(err) {
		return identity.Session{}, apperr.NotFound("Session not found.")
	}
	if err != nil {
		return identity.Session{}, fmt.Errorf("select session %s: %w", id, err)
	}
	return sess, nil
}

// Tx implements identity.Store.
func (s *Store) Tx(ctx context.Context, fn func(identity.Tx) error) error {
	return pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error { return fn(&tx{t: t}) })
}

// CountUsers implements identity.Seeder.
func (s *Store) CountUsers(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM users`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count users: %w", err)
	}
	return n, nil
}

// CreateUserIfMissing implements identity.Seeder.
func (s *Store) CreateUserIfMissing(ctx context.Context, u identity.NewUser, passwordHash string) (bool, error) {
	created := false
	err := pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error {
		var id int64
		err := t.QueryRow(ctx, `
			INSERT INTO users (username, password_hash, is_temporary_password)
			VALUES ($1, $2, $3)
			ON CONFLICT ((lower(username))) DO NOTHING
			RETURNING id`, u.Username, passwordHash, u.Temporary).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("insert user: %w", err)
		}
		tag, err := t.Exec(ctx, `
			INSERT INTO user_roles (user_id, role_id)
			SELECT $1, id FROM roles WHERE name = ANY ($2)`, id, u.Roles)
		if err != nil {
			return fmt.Errorf("insert user roles: %w", err)
		}
		if tag.RowsAffected() != int64(len(u.Roles)) {
			return fmt.Errorf("user %s: unknown role among %v", u.Username, u.Roles)
		}
		if _, err := t.Exec(ctx, `
			INSERT INTO user_merchants (user_id, merchant_id)
			SELECT $1, unnest($2::integer[])`, id, u.MerchantIDs); err != nil {
			return fmt.Errorf("insert user merchants: %w", err)
		}
		created = true
		return nil
	})
	return created, err
}

// tx implements identity.Tx inside one transaction: a pgx.Tx, or a pooled
// connection inside a transaction begun in a batch with its first statement
// (RefreshTx).
type tx struct {
	t pgdb.Querier
}

// UserByID implements identity.Tx.
func (x *tx) UserByID(ctx context.Context, id int64) (identity.User, error) {
	u, err := scanUser(x.t.QueryRow(ctx, `SELECT `+userColumns+` FROM users u WHERE u.id = $1`, id))
	if err != nil && apperr.KindOf(err) != apperr.KindNotFound {
		return u, fmt.Errorf("select user %d: %w", id, err)
	}
	return u, err
}

func (x *tx) AllowedRanges(ctx context.Context, userID int64) ([]identity.IPRange, error) {
	rows, err := x.t.Query(ctx, `SELECT host(from_ip), host(to_ip) FROM user_allowed_ips WHERE user_id = $1`, userID)
	if err != nil {
		return nil, fmt.Errorf("select allowed ips of user %d: %w", userID, err)
	}
	var out []identity.IPRange
	for rows.Next() {
		var from, to string
		if err := rows.Scan(&from, &to); err != nil {
			return nil, fmt.Errorf("scan allowed ip: %w", err)
		}
		f, err1 := netip.ParseAddr(from)
		t, err2 := netip.ParseAddr(to)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("parse allowed ip range: %w", err)
		}
		out = append(out, identity.IPRange{From: f, To: t})
	}
	return out, rows.Err()
}

func (x *tx) InsertSession(ctx context.Context, s identity.Session) error {
	_, err := x.t.Exec(ctx, `
		INSERT INTO sessions (id, user_id, ip, user_agent, created_at, last_seen_at, refresh_expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		s.ID, s.UserID, s.IP, s.UserAgent, s.CreatedAt, s.LastSeenAt, s.RefreshExpiresAt)
	if err != nil {
		return fmt.Errorf("insert session: %w", err)
	}
	return nil
}

func (x *tx) SessionForUpdate(ctx context.Context, id string) (identity.Session, error) {
	return selectSession(ctx, x.t, id, " FOR UPDATE")
}

func (x *tx) RevokeSession(ctx context.Context, id, reason string, at time.Time) error {
	if _, err := x.t.Exec(ctx, `
		UPDATE sessions SET revoked_at = $2, revoked_reason = $3
		WHERE id = $1 AND revoked_at IS NULL`, id, at, reason); err != nil {
		return fmt.Errorf("revoke session %s: %w", id, err)
	}
	return nil
}

func (x *tx) RevokeOtherSessions(ctx context.Context, userID int64, keep, reason string, at time.Time) ([]string, error) {
	rows, err := x.t.Query(ctx, `
		UPDATE sessions SET revoked_at = $3, revoked_reason = $4
		WHERE user_id = $1 AND id <> $2 AND revoked_at IS NULL
		RETURNING id::text`, userID, keep, at, reason)
	if err != nil {
		return nil, fmt.Errorf("revoke other sessions of user %d: %w", userID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("revoke other sessions of user %d: %w", userID, err)
	}
	return ids, nil
}

func (x *tx) InsertRefreshToken(ctx context.Context, t identity.RefreshToken) error {
	if _, err := x.t.Exec(ctx, `
		INSERT INTO refresh_tokens (token_hash, session_id, created_at, expires_at)
		VALUES ($1, $2, $3, $4)`, t.Hash, t.SessionID, t.CreatedAt, t.ExpiresAt); err != nil {
		return fmt.Errorf("insert refresh token: %w", err)
	}
	return nil
}

// refreshLockSQL locks a refresh token (by its hash) and its session, and
// reads the session's user and the stored settings (their one row joined
// in), in one statement.
const refreshLockSQL = `
	SELECT rt.token_hash, rt.session_id::text, rt.created_at, rt.expires_at, rt.used_at,
		s.id::text, s.user_id, s.ip, s.user_agent, s.created_at, s.last_seen_at, s.refresh_expires_at, s.revoked_at,
		` + userColumns + `,
		st.require_second_factor, st.session_idle_timeout_seconds, st.session_max_lifetime_seconds
	FROM refresh_tokens rt JOIN sessions s ON s.id = rt.session_id JOIN users u ON u.id = s.user_id
		LEFT JOIN auth_settings st ON st.id = 1
	WHERE rt.token_hash = $1
	FOR UPDATE OF rt, s`

// rotateSQL spends a refresh token ($1, unless it was spent already),
// records the session's activity at $2 with $5 as its refresh expiry, and
// stores the next token ($4) of session $3, in one statement.
const rotateSQL = `
	WITH spent AS (
		UPDATE refresh_tokens SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL
	), touched AS (
		UPDATE sessions SET last_seen_at = $2, refresh_expires_at = $5 WHERE id = $3
	)
	INSERT INTO refresh_tokens (token_hash, session_id, created_at, expires_at) VALUES ($4, $3, $2, $5)`

func scanRefreshLock(row pgx.Row) (identity.RefreshLock, error) {
	var (
		l          identity.RefreshLock
		t, sess, u = &l.Token, &l.Session, &l.User
		req        *string
		idle, life *int64
	)
	err := row.Scan(
		&t.Hash, &t.SessionID, &t.CreatedAt, &t.ExpiresAt, &t.UsedAt,
		&sess.ID, &sess.UserID, &sess.IP, &sess.UserAgent, &sess.CreatedAt, &sess.LastSeenAt, &sess.RefreshExpiresAt, &sess.RevokedAt,
		&u.ID, &u.Username, &u.PasswordHash, &u.IsTemporaryPassword, &u.IsIPRestricted, &u.IsDisabled,
		&u.Roles, &u.Permissions, &u.MerchantIDs, &u.Global,
		&req, &idle, &life)
	if errors.Is(err, pgx.ErrNoRows) {
		return l, apperr.NotFound("Refresh token not found.")
	}
	if err != nil {
		return l, fmt.Errorf("select refresh token: %w", err)
	}
	if req != nil && idle != nil && life != nil {
		l.SettingsStored = true
		l.Settings = settingsOf(*req, *idle, *life)
	}
	return l, nil
}

// RefreshTx implements identity.Store in two round trips where pgdb.InTx
// takes four: the BEGIN goes in one batch with the locking statement, and
// the rotation in one with the COMMIT (issue 31). The transaction is the
// connection's own: on any failure it is rolled back before the connection
// goes back to the pool (which drops a connection still in a transaction).
func (s *Store) RefreshTx(ctx context.Context, hash []byte, fn func(identity.Tx, identity.RefreshLock) (*identity.Rotation, error)) error {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire connection: %w", err)
	}
	defer func() {
		if c.Conn().PgConn().TxStatus() != 'I' {
			rbCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			_, _ = c.Exec(rbCtx, "ROLLBACK")
		}
		c.Release()
	}()

	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(refreshLockSQL, hash)
	br := c.SendBatch(ctx, b)
	_, err = br.Exec()
	if err != nil {
		_ = br.Close()
		return fmt.Errorf("begin transaction: %w", err)
	}
	lock, err := scanRefreshLock(br.QueryRow())
	if cerr := br.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("select refresh token: %w", cerr)
	}
	if err != nil {
		return err
	}

	rot, err := fn(&tx{t: c}, lock)
	if err != nil {
		return err
	}
	b = &pgx.Batch{}
	if rot != nil {
		b.Queue(rotateSQL, rot.Spent, rot.At, rot.Next.SessionID, rot.Next.Hash, rot.Next.ExpiresAt)
	}
	b.Queue("COMMIT")
	return commitBatch(ctx, c, b, rot)
}

// commitBatch sends b (the rotation, if any, then COMMIT) in one round trip.
func commitBatch(ctx context.Context, c *pgxpool.Conn, b *pgx.Batch, rot *identity.Rotation) (err error) {
	br := c.SendBatch(ctx, b)
	defer func() {
		if cerr := br.Close(); err == nil && cerr != nil {
			err = pgdb.Translate(fmt.Errorf("commit transaction: %w", cerr), "The record")
		}
	}()
	if rot != nil {
		if _, err := br.Exec(); err != nil {
			return fmt.Errorf("rotate refresh token of session %s: %w", rot.Next.SessionID, err)
		}
	}
	tag, err := br.Exec()
	if err == nil && tag.String() != "COMMIT" {
		// A failed transaction answers COMMIT with ROLLBACK.
		err = pgx.ErrTxCommitRollback
	}
	if err != nil {
		return pgdb.Translate(fmt.Errorf("commit transaction: %w", err), "The record")
	}
	return nil
}

func (x *tx) SpendRefreshTokens(ctx context.Context, sessionID string, at time.Time) error {
	if _, err := x.t.Exec(ctx, `UPDATE refresh_tokens SET used_at = $2 WHERE session_id = $1 AND used_at IS NULL`,
		sessionID, at); err != nil {
		return fmt.Errorf("spend refresh tokens of session %s: %w", sessionID, err)
	}
	return nil
}

func (x *tx) SetPassword(ctx context.Context, userID int64, hash string, temporary bool, at time.Time) error {
	tag, err := x.t.Exec(ctx, `
		UPDATE users SET password_hash = $2, is_temporary_password = $3, password_changed_at = $4, updated_at = $4
		WHERE id = $1`, userID, hash, temporary, at)
	if err != nil {
		return fmt.Errorf("set password of user %d: %w", userID, err)
	}
	if tag.RowsAffected() == 0 {
		return apperr.NotFound("User not found.")
	}
	return nil
}

func (x *tx) Publish(ctx context.Context, event proto.Message) error {
	if _, err := bus.Enqueue(ctx, x.t, bus.Subject(event), event); err != nil {
		return fmt.Errorf("enqueue %s: %w", proto.MessageName(event), err)
	}
	return nil
}

// isInvalidText reports a value Postgres could not parse, such as a session
// id that is not a UUID: for a lookup that means "no such row".
func isInvalidText(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "22P02"
}
