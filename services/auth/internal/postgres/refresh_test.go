package postgres_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/auth/internal/identity"
	"github.com/paygate/paygate/services/auth/internal/postgres"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

// TestRefreshTx: the refresh's own transaction (BEGIN sent with the locking
// statement, the rotation with the COMMIT) commits a rotation whole, and on
// every failure — fn's error after a write, a rotation Postgres refuses —
// leaves nothing behind and hands back a connection the pool can use. A
// token that does not exist is not found without calling fn.
func TestRefreshTx(t *testing.T) {
	t.Parallel()
	shared, _ := pgtest.Schema(t, postgres.Migrations())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// One connection, whose backend must stay the same throughout: one
	// released inside a transaction would be dropped by the pool.
	cfg := shared.Config()
	cfg.MaxConns, cfg.MinConns = 1, 0
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	store := postgres.New(pool)
	backend := func() (pid int) {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		return pid
	}
	pid := backend()
	now := time.Now().Truncate(time.Microsecond)
	var sid string
	if err := pool.QueryRow(ctx, `
		WITH u AS (INSERT INTO users (username, password_hash) VALUES ('rt-user', 'x') RETURNING id),
		     s AS (INSERT INTO sessions (id, user_id, ip, user_agent, created_at, last_seen_at, refresh_expires_at)
		           SELECT gen_random_uuid(), id, '10.0.0.1', 'test', $1, $1, $1::timestamptz + interval '1 day' FROM u RETURNING id)
		SELECT id::text FROM s`, now).Scan(&sid); err != nil {
		t.Fatal(err)
	}
	first, second, third := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32), bytes.Repeat([]byte{3}, 32)
	for _, h := range [][]byte{first, second} {
		if _, err := pool.Exec(ctx, `INSERT INTO refresh_tokens (token_hash, session_id, created_at, expires_at)
			VALUES ($1, $2, $3, $3::timestamptz + interval '1 day')`, h, sid, now); err != nil {
			t.Fatal(err)
		}
	}
	state := func() (used bool, tokens int, revoked bool) {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT
			(SELECT used_at IS NOT NULL FROM refresh_tokens WHERE token_hash = $1),
			(SELECT count(*) FROM refresh_tokens WHERE session_id = $2),
			(SELECT revoked_at IS NOT NULL FROM sessions WHERE id = $2)`, first, sid).Scan(&used, &tokens, &revoked); err != nil {
			t.Fatal(err)
		}
		return used, tokens, revoked
	}

	called := false
	err = store.RefreshTx(ctx, bytes.Repeat([]byte{9}, 32), func(identity.Tx, identity.RefreshLock) (*identity.Rotation, error) {
		called = true
		return nil, nil
	})
	if apperr.KindOf(err) != apperr.KindNotFound || called {
		t.Fatalf("unknown token: err %v, fn called %v; want not found without fn", err, called)
	}

	// fn writes, then fails: the write is rolled back.
	boom := errors.New("boom")
	err = store.RefreshTx(ctx, first, func(tx identity.Tx, l identity.RefreshLock) (*identity.Rotation, error) {
		if l.Session.ID != sid || l.User.Username != "rt-user" || !bytes.Equal(l.Token.Hash, first) {
			t.Errorf("lock read %+v", l)
		}
		if err := tx.RevokeSession(ctx, sid, "test", now); err != nil {
			return nil, err
		}
		return nil, boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("fn's error: got %v", err)
	}
	if used, n, revoked := state(); used || n != 2 || revoked {
		t.Fatalf("after fn failed: used %v, tokens %d, revoked %v; want nothing changed", used, n, revoked)
	}

	// A rotation Postgres refuses (the next token's hash is taken): the
	// spend of the first token is rolled back with it.
	err = store.RefreshTx(ctx, first, func(identity.Tx, identity.RefreshLock) (*identity.Rotation, error) {
		return &identity.Rotation{Spent: first, At: now, Next: identity.RefreshToken{Hash: second, SessionID: sid, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}}, nil
	})
	if err == nil {
		t.Fatal("a rotation to a taken hash was accepted")
	}
	if used, n, revoked := state(); used || n != 2 || revoked {
		t.Fatalf("after a refused rotation: used %v, tokens %d, revoked %v; want nothing changed", used, n, revoked)
	}

	// The rotation commits whole, on the same (one) connection.
	err = store.RefreshTx(ctx, first, func(identity.Tx, identity.RefreshLock) (*identity.Rotation, error) {
		return &identity.Rotation{Spent: first, At: now, Next: identity.RefreshToken{Hash: third, SessionID: sid, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if used, n, revoked := state(); !used || n != 3 || revoked {
		t.Fatalf("after the rotation: used %v, tokens %d, revoked %v; want spent, 3 tokens, live", used, n, revoked)
	}
	var exp time.Time
	if err := pool.QueryRow(ctx, `SELECT refresh_expires_at FROM sessions WHERE id = $1`, sid).Scan(&exp); err != nil {
		t.Fatal(err)
	}
	if !exp.Equal(now.Add(time.Hour)) {
		t.Fatalf("session's refresh expiry %v, want the next token's %v", exp, now.Add(time.Hour))
	}

	// A write through fn's Tx with no rotation commits (the reuse path).
	err = store.RefreshTx(ctx, first, func(tx identity.Tx, _ identity.RefreshLock) (*identity.Rotation, error) {
		return nil, tx.RevokeSession(ctx, sid, "test", now)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, revoked := state(); !revoked {
		t.Fatal("a revoke without rotation was not committed")
	}
	if got := backend(); got != pid {
		t.Fatalf("the connection was replaced (backend %d, was %d): one went back to the pool inside a transaction", got, pid)
	}
}
