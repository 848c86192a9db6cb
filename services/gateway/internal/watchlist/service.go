package watchlist

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Caller is the signed-in user a call is made for.
type Caller struct {
	UserID int64
	Scope  merchant.Scope
}

// Service serves the watchlist calls.
type Service struct {
	store Store
	now   func() time.Time
	// changed tells the evaluator of this replica that the definitions
	// changed (the others reload them within seconds).
	changed func()
}

// NewService returns the service on store; changed (may be nil) is called
// after every change of a watchlist.
func NewService(store Store, now func() time.Time, changed func()) *Service {
	if changed == nil {
		changed = func() {}
	}
	return &Service{store: store, now: now, changed: changed}
}

// Create pins a new watchlist for c.
func (s *Service) Create(ctx context.Context, c Caller, in Input) (Watchlist, error) {
	w, err := validate(in)
	if err != nil {
		return Watchlist{}, err
	}
	w.UserID, w.Scope = c.UserID, c.Scope
	w, err = s.store.Create(ctx, w, MaxPerUser)
	if err != nil {
		return Watchlist{}, err
	}
	s.changed()
	return w, nil
}

// List answers c's watchlists, recording c's current scope on them.
func (s *Service) List(ctx context.Context, c Caller) ([]Watchlist, error) {
	if err := s.store.SetScope(ctx, c.UserID, c.Scope); err != nil {
		return nil, err
	}
	return s.store.List(ctx, c.UserID)
}

// Update replaces c's watchlist id; a changed filter, metric, window or
// threshold re-arms it.
func (s *Service) Update(ctx context.Context, c Caller, id int64, in Input) (Watchlist, error) {
	w, err := validate(in)
	if err != nil {
		return Watchlist{}, err
	}
	old, err := s.store.Get(ctx, c.UserID, id)
	if err != nil {
		return Watchlist{}, err
	}
	w.ID, w.UserID, w.Scope = id, c.UserID, c.Scope
	rearm := old.FilterKey() != w.FilterKey() || old.Metric != w.Metric || old.WindowMinutes != w.WindowMinutes ||
		thresholdKey(old.Threshold) != thresholdKey(w.Threshold)
	if w, err = s.store.Update(ctx, w, rearm); err != nil {
		return Watchlist{}, err
	}
	s.changed()
	return w, nil
}

func thresholdKey(t *Threshold) string {
	if t == nil {
		return ""
	}
	return t.Comparison + " " + t.Value.RatString() + " " + t.Currency
}

// Delete removes c's watchlist id.
func (s *Service) Delete(ctx context.Context, c Caller, id int64) error {
	if err := s.store.Delete(ctx, c.UserID, id); err != nil {
		return err
	}
	s.changed()
	return nil
}

// Values computes the value of each of c's watchlists now; identical
// watchlists are computed once.
func (s *Service) Values(ctx context.Context, c Caller) ([]Value, error) {
	ws, err := s.List(ctx, c)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC()
	done := map[string]Totals{}
	out := make([]Value, 0, len(ws))
	for _, w := range ws {
		key := groupKey(w)
		t, ok := done[key]
		if !ok {
			if t, err = compute(ctx, s.store, w, now); err != nil {
				return nil, err
			}
			done[key] = t
		}
		out = append(out, valueOf(w, t, now))
	}
	return out, nil
}

// Alerts pages c's alerts; token is the previous page's NextToken.
func (s *Service) Alerts(ctx context.Context, c Caller, pageSize int32, token string, unacknowledged bool) (AlertPage, error) {
	q := AlertQuery{UserID: c.UserID, Limit: 20, Unacknowledged: unacknowledged}
	switch {
	case pageSize == 0:
	case pageSize >= 1 && pageSize <= 100:
		q.Limit = int(pageSize)
	default:
		return AlertPage{}, apperr.Invalid("pageSize must be between 1 and 100.")
	}
	if token != "" {
		b, err := base64.RawURLEncoding.DecodeString(token)
		n, perr := strconv.ParseInt(string(b), 10, 64)
		if err != nil || perr != nil || n <= 0 {
			return AlertPage{}, apperr.Invalid("pageToken is not a token of this list: start from the first page.")
		}
		q.Before = n
	}
	return s.store.Alerts(ctx, q)
}

// NextToken is the page token of the page after p; empty on the last.
func NextToken(p AlertPage) string {
	if p.Next == 0 {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(p.Next, 10)))
}

// Acknowledge marks c's alert id as seen.
func (s *Service) Acknowledge(ctx context.Context, c Caller, id int64) (Alert, error) {
	return s.store.Acknowledge(ctx, c.UserID, id, s.now().UTC())
}

// groupKey is what identical watchlists share: filter, window, what is
// computed and scope.
func groupKey(w Watchlist) string {
	scope := "all"
	if !w.Scope.All {
		scope = fmt.Sprint(sortedIDs(w.Scope.MerchantIDs))
	}
	return fmt.Sprintf("%s|%d|%t|%s", w.FilterKey(), w.WindowMinutes, w.Metric == MetricSuccessRate, scope)
}

// bounds are the window of w at now, cut by the filter's own from/to; ok
// is false when they leave nothing.
func bounds(w Watchlist, f payment.ListFilter, now time.Time) (from, to time.Time, ok bool) {
	from, to = now.Add(-w.Window()), now
	if f.From != nil && f.From.After(from) {
		from = *f.From
	}
	if f.To != nil && f.To.Before(to) {
		to = *f.To
	}
	return from, to, !from.After(to)
}

// compute runs w's aggregate at now.
func compute(ctx context.Context, store Store, w Watchlist, now time.Time) (Totals, error) {
	f, err := payment.ParseListQuery(w.Filter)
	if err != nil {
		// Stored filters were valid when saved; a rule tightened since
		// makes the watchlist count nothing rather than fail every call.
		return Totals{Sums: map[string]string{}}, nil
	}
	f.Scope = w.Scope
	from, to, ok := bounds(w, f, now)
	if !ok || (!f.Scope.All && len(f.Scope.MerchantIDs) == 0) {
		return Totals{Sums: map[string]string{}}, nil
	}
	t, err := store.Totals(ctx, f, from, to, w.Metric == MetricSuccessRate)
	if err != nil {
		return Totals{}, fmt.Errorf("compute watchlist %d: %w", w.ID, err)
	}
	return t, nil
}

func valueOf(w Watchlist, t Totals, now time.Time) Value {
	return Value{WatchlistID: w.ID, UserID: w.UserID, Metric: w.Metric, WindowMinutes: w.WindowMinutes, Totals: t,
		WindowStart: now.Add(-w.Window()), ComputedAt: now, Crossed: w.Crossed}
}
