package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

// The activity log grows to millions of rows, so every read must be able to
// walk an index newest first and stop at the limit. A test table is too small
// for the planner to prefer that on its own, so sequential scans, bitmap scans
// and sorts are priced out: each query shape's plan must then still use its
// index, and (but for the merge of several merchants) need no sort.
func TestActivityQueriesUseTheirIndexes(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, _ := pgtest.Schema(t, Migrations)
	if _, err := pool.Exec(ctx, `
		INSERT INTO activity_log (at, merchant_id, collab_id, action_type, message)
		SELECT now() - make_interval(mins => g), 1 + g % 5, 1 + g % 50, 'Limits', 'm' FROM generate_series(1, 2000) g`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE activity_log`); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	base := activity.Query{From: now.Add(-7 * 24 * time.Hour), To: now, Limit: 100}
	with := func(f func(q *activity.Query)) activity.Query { q := base; f(&q); return q }
	tests := []struct {
		name   string
		q      activity.Query
		index  string
		sorted bool
	}{
		{"everything", with(func(q *activity.Query) { q.Scope.All = true }), "activity_log_at_idx", false},
		{"one merchant", with(func(q *activity.Query) { q.Scope.All, q.MerchantID = true, 2 }), "activity_log_merchant_at_idx", false},
		{"one merchant in scope", with(func(q *activity.Query) { q.Scope.MerchantIDs, q.MerchantID = []int32{2}, 2 }), "activity_log_merchant_at_idx", false},
		{"one collab", with(func(q *activity.Query) { q.Scope.All, q.CollabID = true, 7 }), "activity_log_collab_at_idx", false},
		{"one collab in scope", with(func(q *activity.Query) { q.Scope, q.CollabID = merchant.Scope{MerchantIDs: []int32{1, 2}}, 7 }), "activity_log_collab_at_idx", false},
		{"a merchant user's merchants", with(func(q *activity.Query) { q.Scope.MerchantIDs = []int32{1, 3} }), "activity_log_merchant_at_idx", true},
	}
	for _, tt := range tests {
		sql, args := activityQuery(tt.q)
		plan := explain(ctx, t, pool.Begin, sql, args)
		if !strings.Contains(plan, tt.index) {
			t.Errorf("%s: plan does not use %s:\n%s", tt.name, tt.index, plan)
		}
		if !tt.sorted && strings.Contains(plan, "Sort") || strings.Contains(plan, "Seq Scan") {
			t.Errorf("%s: plan sorts:\n%s", tt.name, plan)
		}
	}
	if sql, _ := activityQuery(activity.Query{Limit: 10}); sql != "" {
		t.Errorf("a caller with no merchants gets a query: %s", sql)
	}
}

func explain(ctx context.Context, t *testing.T, begin func(context.Context) (pgx.Tx, error), sql string, args []any) string {
	t.Helper()
	tx, err := begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	for _, setting := range []string{"enable_seqscan", "enable_bitmapscan", "enable_sort"} {
		if _, err := tx.Exec(ctx, "SET LOCAL "+setting+" = off"); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := tx.Query(ctx, "EXPLAIN "+sql, args...)
	if err != nil {
		t.Fatalf("explain %s: %v", sql, err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}
