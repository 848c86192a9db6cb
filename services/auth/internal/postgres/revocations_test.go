package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/paygate/paygate/services/auth/internal/postgres"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

func TestRevokedSessionsSince(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, postgres.Migrations())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	store := postgres.New(pool)

	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var userID int64
	if err := pool.QueryRow(ctx, `INSERT INTO users (username, password_hash) VALUES ('revoked', 'x') RETURNING id`).Scan(&userID); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		id      string
		revoked *time.Time
	}{
		{"00000000-0000-0000-0000-000000000001", nil},                             // live
		{"00000000-0000-0000-0000-000000000002", ptr(now.Add(-time.Minute))},      // revoked within the window
		{"00000000-0000-0000-0000-000000000003", ptr(now.Add(-10 * time.Minute))}, // revoked before it
	} {
		if _, err := pool.Exec(ctx, `INSERT INTO sessions (id, user_id, ip, user_agent, created_at, last_seen_at, refresh_expires_at, revoked_at)
			VALUES ($1, $2, '127.0.0.1', 'test', $3, $3, $4, $5)`, s.id, userID, now.Add(-time.Hour), now.Add(time.Hour), s.revoked); err != nil {
			t.Fatal(err)
		}
	}
	got, err := store.RevokedSessionsSince(ctx, now.Add(-5*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != "00000000-0000-0000-0000-000000000002" || !got[0].RevokedAt.Equal(now.Add(-time.Minute)) {
		t.Errorf("RevokedSessionsSince = %+v, want only session 2 revoked at %v", got, now.Add(-time.Minute))
	}
}
