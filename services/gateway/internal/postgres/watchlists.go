package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/watchlist"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Watchlists is the Postgres implementation of watchlist.Store (migration
// 0032).
type Watchlists struct {
	pool *pgxpool.Pool
	// StatementTimeout bounds each aggregate (2 s when zero).
	StatementTimeout time.Duration
}

var _ watchlist.Store = (*Watchlists)(nil)

// NewWatchlists returns the watchlist store on pool.
func NewWatchlists(pool *pgxpool.Pool) *Watchlists { return &Watchlists{pool: pool} }

const (
	entityWatchlist = "The watchlist"
	entityAlert     = "The alert"
)

const watchlistColumns = `id, user_id, name, filter, view_id, query, metric, window_minutes, threshold_comparison,
	threshold_value::text, threshold_currency, scope_all, scope_merchant_ids, crossed, created_at, updated_at`

func scanWatchlist(row pgx.Row) (watchlist.Watchlist, error) {
	var w watchlist.Watchlist
	var filter []byte
	var metric string
	var cmp, value *string
	var cur string
	if err := row.Scan(&w.ID, &w.UserID, &w.Name, &filter, &w.ViewID, &w.Query, &metric, &w.WindowMinutes, &cmp, &value,
		&cur, &w.Scope.All, &w.Scope.MerchantIDs, &w.Crossed, &w.CreatedAt, &w.UpdatedAt); err != nil {
		return w, err
	}
	w.Metric = watchlist.Metric(metric)
	if err := json.Unmarshal(filter, &w.Filter); err != nil {
		return w, fmt.Errorf("stored filter of watchlist %d: %w", w.ID, err)
	}
	if cmp != nil && value != nil {
		r, ok := new(big.Rat).SetString(*value)
		if !ok {
			return w, fmt.Errorf("stored threshold of watchlist %d: %q", w.ID, *value)
		}
		w.Threshold = &watchlist.Threshold{Comparison: *cmp, Value: r, Currency: cur}
	}
	w.CreatedAt, w.UpdatedAt = w.CreatedAt.UTC(), w.UpdatedAt.UTC()
	return w, nil
}

func collectWatchlists(rows pgx.Rows, err error) ([]watchlist.Watchlist, error) {
	if err != nil {
		return nil, fmt.Errorf("select watchlists: %w", err)
	}
	ws, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (watchlist.Watchlist, error) { return scanWatchlist(r) })
	if err != nil {
		return nil, fmt.Errorf("select watchlists: %w", err)
	}
	return ws, nil
}

// thresholdArgs are the threshold columns' values of w.
func thresholdArgs(w watchlist.Watchlist) (cmp, value *string, cur string) {
	if w.Threshold == nil {
		return nil, nil, ""
	}
	v := w.Threshold.ValueText()
	return &w.Threshold.Comparison, &v, w.Threshold.Currency
}

func scopeIDs(s merchant.Scope) []int32 {
	if s.All || s.MerchantIDs == nil {
		return []int32{}
	}
	ids := slices.Clone(s.MerchantIDs)
	slices.Sort(ids)
	return slices.Compact(ids)
}

// Create implements watchlist.Store: the count and the insert run under a
// per-user advisory lock, so two creates cannot both pass the limit.
func (s *Watchlists) Create(ctx context.Context, w watchlist.Watchlist, max int) (watchlist.Watchlist, error) {
	filter, _ := json.Marshal(w.Filter)
	cmp, value, cur := thresholdArgs(w)
	var out watchlist.Watchlist
	err := pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('watchlists'), $1::integer)`, int32(w.UserID)); err != nil {
			return fmt.Errorf("lock watchlists of user %d: %w", w.UserID, err)
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM watchlists WHERE user_id = $1`, w.UserID).Scan(&n); err != nil {
			return fmt.Errorf("count watchlists: %w", err)
		}
		if n >= max {
			return apperr.Conflict("You have %d watchlists, the most one user may pin: delete one first.", max)
		}
		var err error
		out, err = scanWatchlist(tx.QueryRow(ctx, `INSERT INTO watchlists (user_id, name, filter, filter_key, view_id, query, metric,
			window_minutes, threshold_comparison, threshold_value, threshold_currency, scope_all, scope_merchant_ids)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::numeric, $11, $12, $13) RETURNING `+watchlistColumns,
			w.UserID, w.Name, filter, w.FilterKey(), w.ViewID, w.Query, string(w.Metric), w.WindowMinutes, cmp, value, cur,
			w.Scope.All, scopeIDs(w.Scope)))
		if err != nil {
			return fmt.Errorf("insert watchlist: %w", pgdb.Translate(err, entityWatchlist))
		}
		return nil
	})
	return out, err
}

// List implements watchlist.Store.
func (s *Watchlists) List(ctx context.Context, userID int64) ([]watchlist.Watchlist, error) {
	return collectWatchlists(s.pool.Query(ctx, `SELECT `+watchlistColumns+` FROM watchlists WHERE user_id = $1 ORDER BY id`, userID))
}

// All implements watchlist.Store.
func (s *Watchlists) All(ctx context.Context) ([]watchlist.Watchlist, error) {
	return collectWatchlists(s.pool.Query(ctx, `SELECT `+watchlistColumns+` FROM watchlists ORDER BY id`))
}

// Get implements watchlist.Store.
func (s *Watchlists) Get(ctx context.Context, userID, id int64) (watchlist.Watchlist, error) {
	w, err := scanWatchlist(s.pool.QueryRow(ctx, `SELECT `+watchlistColumns+` FROM watchlists WHERE id = $1 AND user_id = $2`, id, userID))
	return w, pgdb.Translate(err, entityWatchlist)
}

// Update implements watchlist.Store.
func (s *Watchlists) Update(ctx context.Context, w watchlist.Watchlist, rearm bool) (watchlist.Watchlist, error) {
	filter, _ := json.Marshal(w.Filter)
	cmp, value, cur := thresholdArgs(w)
	out, err := scanWatchlist(s.pool.QueryRow(ctx, `UPDATE watchlists SET name = $3, filter = $4, filter_key = $5, view_id = $6,
		query = $7, metric = $8, window_minutes = $9, threshold_comparison = $10, threshold_value = $11::numeric,
		threshold_currency = $12, scope_all = $13, scope_merchant_ids = $14, crossed = crossed AND NOT $15, updated_at = now()
		WHERE id = $1 AND user_id = $2 RETURNING `+watchlistColumns,
		w.ID, w.UserID, w.Name, filter, w.FilterKey(), w.ViewID, w.Query, string(w.Metric), w.WindowMinutes, cmp, value, cur,
		w.Scope.All, scopeIDs(w.Scope), rearm))
	return out, pgdb.Translate(err, entityWatchlist)
}

// Delete implements watchlist.Store.
func (s *Watchlists) Delete(ctx context.Context, userID, id int64) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM watchlists WHERE id = $1 AND user_id = $2`, id, userID)
	if err != nil {
		return fmt.Errorf("delete watchlist %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return apperr.NotFound("%s was not found.", entityWatchlist)
	}
	return nil
}

// SetScope implements watchlist.Store.
func (s *Watchlists) SetScope(ctx context.Context, userID int64, scope merchant.Scope) error {
	_, err := s.pool.Exec(ctx, `UPDATE watchlists SET scope_all = $2, scope_merchant_ids = $3
		WHERE user_id = $1 AND (scope_all <> $2 OR scope_merchant_ids <> $3)`, userID, scope.All, scopeIDs(scope))
	if err != nil {
		return fmt.Errorf("record the scope of user %d's watchlists: %w", userID, err)
	}
	return nil
}

// finalStatuses are the final statuses (payment.Status.Final): success and
// every error status.
var finalStatuses = []payment.Status{payment.StatusSuccess, payment.StatusCancelled, payment.StatusPSPError,
	payment.StatusPSPGeneric, payment.StatusNetworkError, payment.StatusInternalError, payment.StatusValidationFail}

// narrow is f restricted to the statuses in keep; ok is false when that
// leaves none.
func narrow(f payment.ListFilter, keep []payment.Status) (payment.ListFilter, bool) {
	if len(f.Statuses) == 0 {
		f.Statuses = keep
		return f, true
	}
	var both []payment.Status
	for _, s := range f.Statuses {
		if slices.Contains(keep, s) {
			both = append(both, s)
		}
	}
	f.Statuses = both
	return f, len(both) > 0
}

// Totals implements watchlist.Store with the list's own count-and-totals
// statement (listCount: the rollups for whole hours, the rows for the
// edges), in one read-only snapshot under a statement timeout.
func (s *Watchlists) Totals(ctx context.Context, f payment.ListFilter, from, to time.Time, rates bool) (watchlist.Totals, error) {
	f.From, f.To = &from, &to
	f = microseconds(f)
	timeout := s.StatementTimeout
	if timeout <= 0 {
		timeout = 2 * time.Second
	}
	t := watchlist.Totals{Sums: map[string]string{}}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, fmt.Sprintf(`SET LOCAL statement_timeout = %d`, timeout.Milliseconds())); err != nil {
			return err
		}
		_, c, err := listCount(ctx, tx, f)
		if err != nil {
			return err
		}
		t.Count = int64(c.total)
		for cur, sum := range c.totals {
			t.Sums[cur] = sum
		}
		if !rates {
			return nil
		}
		if sf, ok := narrow(f, []payment.Status{payment.StatusSuccess}); ok {
			_, c, err := listCount(ctx, tx, sf)
			if err != nil {
				return err
			}
			t.SuccessCount = int64(c.total)
		}
		if ff, ok := narrow(f, finalStatuses); ok {
			_, c, err := listCount(ctx, tx, ff)
			if err != nil {
				return err
			}
			t.FinalCount = int64(c.total)
		}
		return nil
	})
	if err != nil {
		return t, fmt.Errorf("watchlist totals: %w", err)
	}
	return t, nil
}

// Cross implements watchlist.Store: the compare-and-set crossed false →
// true, the alert row and its event in one transaction.
func (s *Watchlists) Cross(ctx context.Context, w watchlist.Watchlist, value string, at time.Time) (watchlist.Alert, bool, error) {
	var a watchlist.Alert
	raised := false
	err := pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		cur, err := scanWatchlist(tx.QueryRow(ctx, `UPDATE watchlists SET crossed = true WHERE id = $1 AND NOT crossed
			AND threshold_value IS NOT NULL RETURNING `+watchlistColumns, w.ID))
		if err == pgx.ErrNoRows {
			return nil
		}
		if err != nil {
			return fmt.Errorf("cross watchlist %d: %w", w.ID, err)
		}
		th := cur.Threshold
		a, err = scanAlert(tx.QueryRow(ctx, `INSERT INTO watchlist_alerts (watchlist_id, user_id, watchlist_name, metric,
			comparison, threshold, currency, value, window_minutes, view_id, query, raised_at)
			VALUES ($1, $2, $3, $4, $5, $6::numeric, $7, $8::numeric, $9, $10, $11, $12) RETURNING `+alertColumns,
			cur.ID, cur.UserID, cur.Name, string(cur.Metric), th.Comparison, th.ValueText(), th.Currency, value,
			cur.WindowMinutes, cur.ViewID, cur.Query, at))
		if err != nil {
			return fmt.Errorf("insert alert of watchlist %d: %w", w.ID, err)
		}
		ev := &eventsv1.AlertRaised{AlertId: a.ID, WatchlistId: cur.ID, UserId: cur.UserID, WatchlistName: a.WatchlistName,
			Metric: string(a.Metric), Comparison: a.Comparison, Threshold: a.Threshold, Currency: a.Currency, Value: a.Value,
			WindowMinutes: a.WindowMinutes, Query: a.Query, RaisedAt: timestamppb.New(a.RaisedAt),
			ScopeAll: cur.Scope.All, MerchantIds: cur.Scope.MerchantIDs}
		if a.ViewID != nil {
			ev.ViewId = *a.ViewID
		}
		if _, err := bus.EnqueueBatch(ctx, tx, ev); err != nil {
			return err
		}
		raised = true
		return nil
	})
	return a, raised, err
}

// Rearm implements watchlist.Store.
func (s *Watchlists) Rearm(ctx context.Context, id int64) error {
	if _, err := s.pool.Exec(ctx, `UPDATE watchlists SET crossed = false WHERE id = $1 AND crossed`, id); err != nil {
		return fmt.Errorf("re-arm watchlist %d: %w", id, err)
	}
	return nil
}

const alertColumns = `id, COALESCE(watchlist_id, 0), user_id, watchlist_name, metric, comparison, threshold::text, currency,
	value::text, window_minutes, view_id, query, raised_at, acknowledged_at`

func scanAlert(row pgx.Row) (watchlist.Alert, error) {
	var a watchlist.Alert
	var metric string
	err := row.Scan(&a.ID, &a.WatchlistID, &a.UserID, &a.WatchlistName, &metric, &a.Comparison, &a.Threshold, &a.Currency,
		&a.Value, &a.WindowMinutes, &a.ViewID, &a.Query, &a.RaisedAt, &a.AcknowledgedAt)
	a.Metric = watchlist.Metric(metric)
	a.RaisedAt = a.RaisedAt.UTC()
	if a.AcknowledgedAt != nil {
		t := a.AcknowledgedAt.UTC()
		a.AcknowledgedAt = &t
	}
	return a, err
}

// Alerts implements watchlist.Store: keyset on id, newest first.
func (s *Watchlists) Alerts(ctx context.Context, q watchlist.AlertQuery) (watchlist.AlertPage, error) {
	p := watchlist.AlertPage{Alerts: []watchlist.Alert{}}
	before := q.Before
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := s.pool.Query(ctx, `SELECT `+alertColumns+` FROM watchlist_alerts WHERE user_id = $1 AND id < $2
		AND (NOT $3 OR acknowledged_at IS NULL) ORDER BY id DESC LIMIT $4`, q.UserID, before, q.Unacknowledged, q.Limit+1)
	if err != nil {
		return p, fmt.Errorf("select alerts: %w", err)
	}
	as, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (watchlist.Alert, error) { return scanAlert(r) })
	if err != nil {
		return p, fmt.Errorf("select alerts: %w", err)
	}
	if len(as) > q.Limit {
		as = as[:q.Limit]
		p.Next = as[len(as)-1].ID
	}
	p.Alerts = append(p.Alerts, as...)
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM watchlist_alerts WHERE user_id = $1 AND acknowledged_at IS NULL`,
		q.UserID).Scan(&p.UnacknowledgedCount); err != nil {
		return p, fmt.Errorf("count alerts: %w", err)
	}
	return p, nil
}

// Acknowledge implements watchlist.Store.
func (s *Watchlists) Acknowledge(ctx context.Context, userID, id int64, at time.Time) (watchlist.Alert, error) {
	a, err := scanAlert(s.pool.QueryRow(ctx, `UPDATE watchlist_alerts SET acknowledged_at = COALESCE(acknowledged_at, $3)
		WHERE id = $1 AND user_id = $2 RETURNING `+alertColumns, id, userID, at))
	return a, pgdb.Translate(err, entityAlert)
}
