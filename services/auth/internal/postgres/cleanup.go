package postgres

import (
	"context"
	"fmt"
	"time"
)

// DeleteExpiredRefreshTokens deletes up to limit refresh tokens that
// expired before now (a refresh with one is refused whether or not it is
// stored) and returns how many it deleted.
func (s *Store) DeleteExpiredRefreshTokens(ctx context.Context, now time.Time, limit int) (int64, error) {
	tag, err := s.pool.Exec(ctx, `
		DELETE FROM refresh_tokens r
		USING (SELECT token_hash FROM refresh_tokens WHERE expires_at < $1
		       ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED) d
		WHERE r.token_hash = d.token_hash`, now, limit)
	if err != nil {
		return 0, fmt.Errorf("delete expired refresh tokens: %w", err)
	}
	return tag.RowsAffected(), nil
}

// DeleteEndedSessions deletes up to limit sessions that ended (their
// refresh tokens expired, or they were revoked) before before, with their
// refresh tokens, and returns how many sessions it deleted.
func (s *Store) DeleteEndedSessions(ctx context.Context, before time.Time, limit int) (int64, error) {
	tag, err := s.pool.Exec(ctx, `
		DELETE FROM sessions s
		USING (SELECT id FROM sessions
		       WHERE LEAST(refresh_expires_at, COALESCE(revoked_at, 'infinity')) < $1
		       ORDER BY LEAST(refresh_expires_at, COALESCE(revoked_at, 'infinity'))
		       LIMIT $2 FOR UPDATE SKIP LOCKED) d
		WHERE s.id = d.id`, before, limit)
	if err != nil {
		return 0, fmt.Errorf("delete ended sessions: %w", err)
	}
	return tag.RowsAffected(), nil
}

// CleanUp deletes expired refresh tokens, then sessions that ended more
// than retention before now, batch rows per statement (so that no statement
// holds many locks or runs long), until none are left or stop is closed
// between two batches. It returns how many tokens (besides those of the
// deleted sessions) and sessions it deleted.
func (s *Store) CleanUp(ctx context.Context, now time.Time, retention time.Duration, batch int, stop <-chan struct{}) (tokens, sessions int64, err error) {
	stopped := func() bool {
		select {
		case <-stop:
			return true
		default:
			return ctx.Err() != nil
		}
	}
	for !stopped() {
		n, err := s.DeleteExpiredRefreshTokens(ctx, now, batch)
		tokens += n
		if err != nil {
			return tokens, sessions, err
		}
		if n < int64(batch) {
			break
		}
	}
	for !stopped() {
		n, err := s.DeleteEndedSessions(ctx, now.Add(-retention), batch)
		sessions += n
		if err != nil {
			return tokens, sessions, err
		}
		if n < int64(batch) {
			break
		}
	}
	return tokens, sessions, nil
}
