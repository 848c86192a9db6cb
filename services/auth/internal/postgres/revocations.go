package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/internal/authz"
)

// RevokedSessionsSince returns the sessions revoked at or after since, for
// the refill of the revocations every service reads in Redis
// (authz.RedisRevocations.KeepRefilled). The table holds live sessions and
// those that ended within the retention, so the scan stays small.
func (s *Store) RevokedSessionsSince(ctx context.Context, since time.Time) ([]authz.RevokedSession, error) {
	rows, err := s.pool.Query(ctx, `SELECT id::text, revoked_at FROM sessions WHERE revoked_at >= $1`, since)
	if err != nil {
		return nil, fmt.Errorf("select sessions revoked since %s: %w", since.Format(time.RFC3339), err)
	}
	revoked, err := pgx.CollectRows(rows, pgx.RowToStructByPos[authz.RevokedSession])
	if err != nil {
		return nil, fmt.Errorf("select sessions revoked since %s: %w", since.Format(time.RFC3339), err)
	}
	return revoked, nil
}
