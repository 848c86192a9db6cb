package postgres_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/paygate/paygate/services/auth/internal/postgres"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

func TestCleanUpDeletesOnlyExpiredRows(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, postgres.Migrations())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	store := postgres.New(pool)

	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	const retention = 24 * time.Hour
	var userID int64
	if err := pool.QueryRow(ctx, `INSERT INTO users (username, password_hash) VALUES ('cleanup', 'x') RETURNING id`).Scan(&userID); err != nil {
		t.Fatal(err)
	}
	// Sessions by name: when their refresh tokens expire, and when they were
	// revoked (nil: never).
	h := time.Hour
	sessions := []struct {
		id      string
		expires time.Time
		revoked *time.Time
		kept    bool
	}{
		{"00000000-0000-0000-0000-000000000001", now.Add(h), nil, true},                    // live
		{"00000000-0000-0000-0000-000000000002", now.Add(-h), nil, true},                   // expired within the retention
		{"00000000-0000-0000-0000-000000000003", now.Add(-retention - h), nil, false},      // expired long ago
		{"00000000-0000-0000-0000-000000000004", now.Add(h), ptr(now.Add(-h)), true},       // revoked recently
		{"00000000-0000-0000-0000-000000000005", now.Add(h), ptr(now.Add(-48 * h)), false}, // revoked long ago
	}
	for _, s := range sessions {
		if _, err := pool.Exec(ctx, `INSERT INTO sessions (id, user_id, ip, user_agent, created_at, last_seen_at, refresh_expires_at, revoked_at)
			VALUES ($1, $2, '127.0.0.1', 'test', $3, $3, $4, $5)`, s.id, userID, now.Add(-72*h), s.expires, s.revoked); err != nil {
			t.Fatal(err)
		}
	}
	// Refresh tokens of the live session: 5 expired a minute ago (more than
	// a batch of 2), 2 valid.
	token := func(n byte, session string, expires time.Time) {
		if _, err := pool.Exec(ctx, `INSERT INTO refresh_tokens (token_hash, session_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
			[]byte{n}, session, now.Add(-72*h), expires); err != nil {
			t.Fatal(err)
		}
	}
	for n := range byte(5) {
		token(n, sessions[0].id, now.Add(-time.Minute))
	}
	token(10, sessions[0].id, now.Add(time.Minute))
	token(11, sessions[0].id, now.Add(h))
	// A valid token of a session revoked long ago goes with its session.
	token(12, sessions[4].id, now.Add(h))

	tokens, deleted, err := store.CleanUp(ctx, now, retention, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tokens != 5 || deleted != 2 {
		t.Errorf("deleted %d tokens and %d sessions, want 5 and 2", tokens, deleted)
	}
	var left []string
	rows, _ := pool.Query(ctx, `SELECT id::text FROM sessions ORDER BY id`)
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		left = append(left, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, s := range sessions {
		if s.kept {
			want = append(want, s.id)
		}
	}
	if !slices.Equal(left, want) {
		t.Errorf("sessions left %v, want %v", left, want)
	}
	var hashes [][]byte
	rows, _ = pool.Query(ctx, `SELECT token_hash FROM refresh_tokens ORDER BY token_hash`)
	for rows.Next() {
		var hash []byte
		if err := rows.Scan(&hash); err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, hash)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(hashes) != 2 || hashes[0][0] != 10 || hashes[1][0] != 11 {
		t.Errorf("refresh tokens left %v, want the two valid ones of the live session", hashes)
	}

	// Nothing left to do: a second pass deletes nothing.
	if tokens, deleted, err := store.CleanUp(ctx, now, retention, 2, nil); err != nil || tokens != 0 || deleted != 0 {
		t.Errorf("second pass deleted %d tokens and %d sessions (%v), want none", tokens, deleted, err)
	}
}

func ptr[T any](v T) *T { return &v }
