// Package currency keeps the currencies the gateway knows and their dated
// rates against USD, the reporting currency (docs/contracts-currencies.md).
// A rate is in force from its effective day (UTC) until the next rate's
// effective day; every rate ever set stays as history, and of two rates for
// one day the later set wins. USD's rate is 1 by definition. Setting a rate
// writes, in one store transaction, the rate, its CurrencyRateSet event
// (outbox) and an activity log entry.
package currency

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/internal/apperr"
)

// USD is the reporting currency; its rate is 1.
const USD = "USD"

// DayLayout is the layout of a rate's effective day.
const DayLayout = "2006-01-02"

// Bounds of an effective day: not before FirstDay, at most a year after
// today.
var FirstDay = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Currency is one currency with the rate in force today (Rate nil when it
// has none).
type Currency struct {
	ID       int32
	Code     string
	Name     string
	Decimals int32
	Rate     *Rate
}

// Rate is one rate as set: USD per one unit of Currency from EffectiveFrom
// (a UTC day) on.
type Rate struct {
	ID       int64
	Currency string
	// USDRate is a positive decimal, as text.
	USDRate       string
	EffectiveFrom time.Time
	SetBy         string
	SetAt         time.Time
}

// Event is r's CurrencyRateSet event.
func (r Rate) Event() *eventsv1.CurrencyRateSet {
	return &eventsv1.CurrencyRateSet{RateId: r.ID, Currency: r.Currency, UsdRate: r.USDRate,
		EffectiveFrom: r.EffectiveFrom.Format(DayLayout), SetBy: r.SetBy, SetAt: timestamppb.New(r.SetAt)}
}

// Journal is the store transaction a rate is set in: what the activity log
// writes to, with the outbox.
type Journal = activity.Journal

// Store keeps currencies and rates.
type Store interface {
	// Currencies returns every currency by code, each with the rate in
	// force on day.
	Currencies(ctx context.Context, day time.Time) ([]Currency, error)
	// Rates returns a currency's rates, newest effective day first, then
	// newest set (not found for an unknown currency).
	Rates(ctx context.Context, code string) ([]Rate, error)
	// SetRate stores r (its ID and SetAt given by the store) and calls
	// then with the stored rate in the same store transaction; nothing is
	// written when either fails (not found for an unknown currency).
	SetRate(ctx context.Context, r Rate, then func(ctx context.Context, j Journal, stored Rate) error) (Rate, error)
	// EachRate calls fn with every rate ever set, oldest first (by id).
	EachRate(ctx context.Context, fn func(Rate) error) error
}

// Service serves currencies and rates.
type Service struct {
	store Store
	now   func() time.Time
}

// NewService returns the service on store, with now the clock.
func NewService(store Store, now func() time.Time) *Service {
	return &Service{store: store, now: now}
}

// List returns every currency with the rate in force today (UTC).
func (s *Service) List(ctx context.Context) ([]Currency, error) {
	return s.store.Currencies(ctx, s.today())
}

// Rates returns a currency's rates, newest effective day first.
func (s *Service) Rates(ctx context.Context, code string) ([]Rate, error) {
	return s.store.Rates(ctx, code)
}

// EachRate calls fn with every rate ever set, oldest first.
func (s *Service) EachRate(ctx context.Context, fn func(Rate) error) error {
	return s.store.EachRate(ctx, fn)
}

func (s *Service) today() time.Time {
	y, m, d := s.now().UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// rateText is a positive decimal: up to 12 digits before the point and up
// to 12 after it.
var rateText = regexp.MustCompile(`^[0-9]{1,12}(\.[0-9]{1,12})?$`)
var zeroText = regexp.MustCompile(`^[0.]*$`)

// SetRequest sets a currency's rate.
type SetRequest struct {
	// Currency is the ISO code.
	Currency string
	// USDRate is USD per one unit, a positive decimal.
	USDRate string
	// EffectiveFrom is the first UTC day, YYYY-MM-DD; today when empty.
	EffectiveFrom string
}

// Set sets a currency's rate from a day on, by actor (an admin), with its
// event and activity log entry. Refused (invalid, nothing written): USD, a
// rate that is not a positive decimal with at most 12 fraction digits, a
// day that is not YYYY-MM-DD, before 2000-01-01 or more than a year ahead;
// an unknown currency is not found.
func (s *Service) Set(ctx context.Context, actor activity.Actor, req SetRequest) (Rate, error) {
	r, err := s.validate(req)
	if err != nil {
		return Rate{}, err
	}
	r.SetBy = actor.Username
	return s.store.SetRate(ctx, r, func(ctx context.Context, j Journal, stored Rate) error {
		if err := j.Publish(ctx, stored.Event()); err != nil {
			return err
		}
		value, err := json.Marshal(map[string]string{"currency": stored.Currency, "usdRate": stored.USDRate,
			"effectiveFrom": stored.EffectiveFrom.Format(DayLayout)})
		if err != nil {
			return fmt.Errorf("encode rate: %w", err)
		}
		return activity.Record(ctx, j, actor, activity.Entry{
			ActionType: activity.ActionConfiguration,
			Message: fmt.Sprintf("Rate of %s set to %s USD from %s.", stored.Currency, stored.USDRate,
				stored.EffectiveFrom.Format(DayLayout)),
			NewValue: value, Count: 1,
		}, stored.SetAt)
	})
}

func (s *Service) validate(req SetRequest) (Rate, error) {
	r := Rate{Currency: req.Currency, USDRate: req.USDRate}
	switch {
	case req.Currency == "":
		return r, apperr.Invalid("currency is required.")
	case req.Currency == USD:
		return r, apperr.Invalid("currency cannot be USD: USD is the reporting currency and its rate is always 1.")
	}
	if !rateText.MatchString(req.USDRate) || zeroText.MatchString(req.USDRate) {
		return r, apperr.Invalid("usdRate must be a positive decimal number with at most 12 digits before and 12 after the point, e.g. \"0.0172\".")
	}
	today := s.today()
	if req.EffectiveFrom == "" {
		r.EffectiveFrom = today
		return r, nil
	}
	day, err := time.Parse(DayLayout, req.EffectiveFrom)
	if err != nil {
		return r, apperr.Invalid("effectiveFrom must be a day written YYYY-MM-DD, e.g. \"2025-01-01\".")
	}
	if day.Before(FirstDay) {
		return r, apperr.Invalid("effectiveFrom must not be before 2000-01-01.")
	}
	if last := today.AddDate(1, 0, 0); day.After(last) {
		return r, apperr.Invalid("effectiveFrom must not be more than a year ahead (at most %s).", last.Format(DayLayout))
	}
	r.EffectiveFrom = day
	return r, nil
}
