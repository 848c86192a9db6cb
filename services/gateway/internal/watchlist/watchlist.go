// Package watchlist keeps the users' pinned watchlists (live counters over a
// transaction-list filter and a rolling window) and the alerts their
// thresholds raise (docs/contracts-watchlists.md): validation, the calls,
// and the evaluator that recomputes the values as transactions change.
package watchlist

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/money"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Metric is what a watchlist counts.
type Metric string

// The metrics.
const (
	MetricCount       Metric = "count"
	MetricSum         Metric = "sum"
	MetricSuccessRate Metric = "successRate"
)

// The comparisons of a threshold.
const (
	Above = "above"
	Below = "below"
)

// Limits of docs/contracts-watchlists.md.
const (
	MaxPerUser       = 20
	MaxNameLen       = 100
	MaxQueryLen      = 2000
	MinWindowMinutes = 5
	MaxWindowMinutes = 1440
)

// Threshold is the value whose crossing raises an alert. Value is exact:
// a whole number (count), a percent (successRate) or an amount (sum).
type Threshold struct {
	Comparison string
	Value      *big.Rat
	// Currency is the currency whose sum is compared (sum only).
	Currency string
}

// ValueText is the threshold's value as a decimal string.
func (t Threshold) ValueText() string { return decimalText(t.Value) }

// Watchlist is one user's pinned live counter.
type Watchlist struct {
	ID     int64
	UserID int64
	Name   string
	// Filter is the list's query (Page and Take nil, IncludeTotals false).
	Filter        payment.ListQuery
	ViewID        *int64
	Query         string
	Metric        Metric
	WindowMinutes int32
	Threshold     *Threshold
	// Scope is the owner's merchant scope, refreshed at each of their calls.
	Scope     merchant.Scope
	Crossed   bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Window is the watchlist's rolling window.
func (w Watchlist) Window() time.Duration { return time.Duration(w.WindowMinutes) * time.Minute }

// FilterKey is the canonical text of the filter: equal filters have equal
// keys.
func (w Watchlist) FilterKey() string { return FilterKey(w.Filter) }

// FilterKey is the canonical text of a list query (encoding/json writes a
// struct's fields in order).
func FilterKey(q payment.ListQuery) string {
	q.Page, q.Take, q.IncludeTotals = nil, nil, false
	b, _ := json.Marshal(q)
	return string(b)
}

// Input is a watchlist as a caller sends it, before validation.
type Input struct {
	Name          string
	Filter        payment.ListQuery
	ViewID        *int64
	Query         string
	Metric        string
	WindowMinutes int32
	// Threshold is nil for none.
	Threshold *ThresholdInput
}

// ThresholdInput is a threshold as sent.
type ThresholdInput struct {
	Comparison, Value, Currency string
}

// validate checks in and returns the watchlist it describes (no id, owner
// or scope); every problem is reported at once, naming the JSON fields.
func validate(in Input) (Watchlist, error) {
	var bad []string
	w := Watchlist{Name: strings.TrimSpace(in.Name), ViewID: in.ViewID, Query: strings.TrimSpace(in.Query),
		Metric: Metric(in.Metric), WindowMinutes: in.WindowMinutes}
	switch n := utf8.RuneCountInString(w.Name); {
	case n == 0:
		bad = append(bad, "name is required")
	case n > MaxNameLen:
		bad = append(bad, fmt.Sprintf("name must be at most %d characters", MaxNameLen))
	}
	if utf8.RuneCountInString(w.Query) > MaxQueryLen {
		bad = append(bad, fmt.Sprintf("query must be at most %d characters", MaxQueryLen))
	}
	if w.ViewID != nil && *w.ViewID <= 0 {
		bad = append(bad, "viewId must be a positive id")
	}
	switch w.Metric {
	case MetricCount, MetricSum, MetricSuccessRate:
	case "":
		bad = append(bad, "metric is required: count, sum or successRate")
	default:
		bad = append(bad, "metric must be count, sum or successRate")
	}
	if w.WindowMinutes < MinWindowMinutes || w.WindowMinutes > MaxWindowMinutes {
		bad = append(bad, fmt.Sprintf("windowMinutes must be between %d and %d", MinWindowMinutes, MaxWindowMinutes))
	}
	q := in.Filter
	q.Page, q.Take, q.IncludeTotals = nil, nil, false
	if _, err := payment.ParseListQuery(q); err != nil {
		msg := err.Error()
		if e := apperr.As(err); e != nil {
			msg = e.PublicMessage()
		}
		bad = append(bad, "filter: "+strings.TrimSuffix(strings.TrimPrefix(msg, "The filters are not valid: "), "."))
	}
	w.Filter = q
	if t := in.Threshold; t != nil && (t.Comparison != "" || t.Value != "" || t.Currency != "") {
		th := Threshold{Comparison: t.Comparison, Currency: strings.ToUpper(strings.TrimSpace(t.Currency))}
		if th.Comparison != Above && th.Comparison != Below {
			bad = append(bad, "threshold.comparison must be above or below")
		}
		v, problem := thresholdValue(w.Metric, strings.TrimSpace(t.Value))
		if problem != "" {
			bad = append(bad, problem)
		}
		th.Value = v
		switch {
		case w.Metric == MetricSum && th.Currency == "":
			bad = append(bad, "threshold.currency is required for the sum metric")
		case w.Metric == MetricSum && (len(th.Currency) > 10):
			bad = append(bad, "threshold.currency must be at most 10 characters")
		case w.Metric != MetricSum && th.Currency != "":
			bad = append(bad, "threshold.currency is only for the sum metric")
		}
		w.Threshold = &th
	}
	if len(bad) > 0 {
		return Watchlist{}, apperr.Invalid("The watchlist is not valid: %s.", strings.Join(bad, "; "))
	}
	return w, nil
}

// thresholdValue reads a threshold's value for metric m.
func thresholdValue(m Metric, s string) (*big.Rat, string) {
	if s == "" {
		return nil, "threshold.value is required"
	}
	switch m {
	case MetricCount:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return nil, "threshold.value must be a whole number of 0 or more for the count metric"
		}
		return new(big.Rat).SetInt64(n), ""
	case MetricSuccessRate:
		r, ok := new(big.Rat).SetString(s)
		if !ok || !plainDecimal(s) || r.Sign() < 0 || r.Cmp(big.NewRat(100, 1)) > 0 {
			return nil, "threshold.value must be a percent from 0 to 100 for the successRate metric"
		}
		return r, ""
	case MetricSum:
		a, err := money.Parse("threshold.value", s)
		if err != nil || a.CentsValue() < 0 {
			return nil, "threshold.value must be an amount such as 150.00 for the sum metric"
		}
		return big.NewRat(a.CentsValue(), 100), ""
	}
	return nil, "" // the metric's own problem is reported
}

func plainDecimal(s string) bool {
	dot := false
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
		case r == '.' && !dot && i > 0 && i < len(s)-1:
			dot = true
		default:
			return false
		}
	}
	return s != ""
}

// decimalText writes r as a decimal with at most 2 fraction digits
// (thresholds have at most 2; rates are rounded to 2).
func decimalText(r *big.Rat) string {
	if r == nil {
		return ""
	}
	if r.IsInt() {
		return r.Num().String()
	}
	return strings.TrimRight(strings.TrimRight(r.FloatString(2), "0"), ".")
}

// Totals are what one aggregate answers over a filter and a window.
type Totals struct {
	Count int64
	// Sums is the sum of amounts per currency (decimal strings).
	Sums         map[string]string
	SuccessCount int64
	FinalCount   int64
}

// Value is a watchlist's value over its window.
type Value struct {
	WatchlistID   int64
	UserID        int64
	Metric        Metric
	WindowMinutes int32
	Totals
	WindowStart time.Time
	ComputedAt  time.Time
	Crossed     bool
}

// SuccessRate is the success rate in percent; ok is false without final
// transactions.
func (v Value) SuccessRate() (float64, bool) {
	if v.FinalCount == 0 {
		return 0, false
	}
	return float64(v.SuccessCount) * 100 / float64(v.FinalCount), true
}

// measure is the value a threshold is compared with; ok is false when there
// is none (a rate without final transactions).
func measure(w Watchlist, t Totals) (*big.Rat, bool) {
	switch w.Metric {
	case MetricCount:
		return new(big.Rat).SetInt64(t.Count), true
	case MetricSuccessRate:
		if t.FinalCount == 0 {
			return nil, false
		}
		return big.NewRat(t.SuccessCount*100, t.FinalCount), true
	case MetricSum:
		cur := ""
		if w.Threshold != nil {
			cur = w.Threshold.Currency
		}
		s, ok := t.Sums[cur]
		if !ok {
			return new(big.Rat), true
		}
		r, ok := new(big.Rat).SetString(s)
		return r, ok
	}
	return nil, false
}

// crossedBy reports whether value is beyond w's threshold.
func crossedBy(w Watchlist, value *big.Rat) bool {
	c := value.Cmp(w.Threshold.Value)
	if w.Threshold.Comparison == Above {
		return c > 0
	}
	return c < 0
}

// Alert is one threshold crossing.
type Alert struct {
	ID            int64
	WatchlistID   int64
	UserID        int64
	WatchlistName string
	Metric        Metric
	Comparison    string
	Threshold     string
	Currency      string
	Value         string
	WindowMinutes int32
	ViewID        *int64
	Query         string
	RaisedAt      time.Time
	// AcknowledgedAt is nil until acknowledged.
	AcknowledgedAt *time.Time
}

// AlertQuery pages a user's alerts, newest first.
type AlertQuery struct {
	UserID int64
	// Before is the id the page starts below (0 for the first page).
	Before         int64
	Limit          int
	Unacknowledged bool
}

// AlertPage is a page of alerts.
type AlertPage struct {
	Alerts []Alert
	// Next is the Before of the next page; 0 on the last.
	Next                int64
	UnacknowledgedCount int64
}

// Store keeps watchlists and alerts and computes totals.
type Store interface {
	// Create inserts w unless its owner has max watchlists already
	// (conflict).
	Create(ctx context.Context, w Watchlist, max int) (Watchlist, error)
	// List answers the user's watchlists, oldest first.
	List(ctx context.Context, userID int64) ([]Watchlist, error)
	// Update replaces the fields of the user's watchlist w.ID, setting
	// crossed false when rearm (not found when it is not the user's).
	Update(ctx context.Context, w Watchlist, rearm bool) (Watchlist, error)
	// Get answers the user's watchlist id (not found otherwise).
	Get(ctx context.Context, userID, id int64) (Watchlist, error)
	// Delete removes the user's watchlist id (not found otherwise).
	Delete(ctx context.Context, userID, id int64) error
	// SetScope records the user's current merchant scope on every one of
	// their watchlists whose scope differs.
	SetScope(ctx context.Context, userID int64, scope merchant.Scope) error
	// All answers every watchlist (at most MaxPerUser per user).
	All(ctx context.Context) ([]Watchlist, error)
	// Totals computes the totals of f's matching transactions created in
	// [from, to], with the success and final counts when rates.
	Totals(ctx context.Context, f payment.ListFilter, from, to time.Time, rates bool) (Totals, error)
	// Cross raises an alert for w with value when w is not crossed (a
	// compare-and-set with the alert row and its outbox event); raised is
	// false when it already was.
	Cross(ctx context.Context, w Watchlist, value string, at time.Time) (a Alert, raised bool, err error)
	// Rearm sets w's crossed false when it is true.
	Rearm(ctx context.Context, id int64) error
	// Alerts pages alerts.
	Alerts(ctx context.Context, q AlertQuery) (AlertPage, error)
	// Acknowledge marks the user's alert id acknowledged at at (keeping an
	// earlier time); not found when it is not the user's.
	Acknowledge(ctx context.Context, userID, id int64, at time.Time) (Alert, error)
}

func sortedIDs(ids []int32) []int32 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}
