package statistics

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/paygate/paygate/services/internal/apperr"
)

// Scope is whose transactions a caller may see.
type Scope struct {
	// Global callers (Admin, Support) see every merchant, and the
	// per-merchant figures.
	Global bool
	// Merchants are the caller's own merchants when not Global.
	Merchants []int32
}

// Request is a GetStatistics call as the caller sent it.
type Request struct {
	Currency string
	From     string
	To       string
	// MerchantID is 0 for every merchant the caller may see.
	MerchantID int32
}

// Statistics are the Financial Dashboard's figures.
type Statistics struct {
	Total, Successful, Failed, Pending, Refunded int64
	ValidationFailed, PSPError, Cancelled        int64
	NotConfirmed                                 int64
	ByProvider                                   []ProviderCount
	ByMerchant                                   []MerchantCount
	CashIn, CashOut                              CashFlow
	CashInByMerchant, CashOutByMerchant          []MerchantCash
	Currency                                     string
	Range                                        Range
	Unconverted                                  []Unconverted
	AsOf                                         time.Time
}

// ProviderCount is a provider's transactions.
type ProviderCount struct {
	ID         int32
	Name       string
	Count      int64
	Successful int64
}

// MerchantCount is a merchant's transactions.
type MerchantCount struct {
	ID         int32
	Name       string
	Count      int64
	Successful int64
}

// CashFlow is the successful transactions of one type.
type CashFlow struct {
	Amount string
	Count  int64
	Days   []CashDay
}

// CashDay is one day of a cash flow.
type CashDay struct {
	Start  time.Time
	Amount string
	Count  int64
}

// MerchantCash is one merchant's part of a cash flow.
type MerchantCash struct {
	ID     int32
	Name   string
	Amount string
	Count  int64
}

// Unconverted is a sum that had no rate on its day, in its own currency.
type Unconverted struct {
	Currency string
	Type     int32
	Amount   string
	Count    int64
}

// Service answers statistics and applies states.
type Service struct {
	store Store
	now   func() time.Time
}

// NewService returns the service on store.
func NewService(store Store) *Service { return &Service{store: store, now: time.Now} }

// PruneMinutes deletes the minute buckets older than MinuteHorizon.
func (s *Service) PruneMinutes(ctx context.Context) (int64, error) {
	return s.store.PruneMinutes(ctx, MinuteHorizon(s.now()))
}

// Apply applies a batch of states (live events or a rebuild's pages)
// through the one compare-and-set path.
func (s *Service) Apply(ctx context.Context, states []State) (int, error) {
	return s.store.Apply(ctx, states)
}

// ApplyRates stores rates.
func (s *Service) ApplyRates(ctx context.Context, rates []Rate) error {
	return s.store.ApplyRates(ctx, rates)
}

// Get answers req for a caller of scope. Errors: invalid (a field, named),
// not found (a merchant outside the scope), internal.
func (s *Service) Get(ctx context.Context, scope Scope, req Request) (Statistics, error) {
	cur := req.Currency
	if cur == "" {
		cur = "USD"
	}
	if !currencyPattern.MatchString(cur) {
		return Statistics{}, apperr.Invalid("currency must be an ISO code of three capital letters, such as USD.")
	}
	r, err := ParseRange(req.From, req.To)
	if err != nil {
		return Statistics{}, err
	}
	if err := CheckMinutes(r, s.now()); err != nil {
		return Statistics{}, err
	}
	if cur != "USD" {
		ok, err := s.store.HasRate(ctx, cur)
		if err != nil {
			return Statistics{}, err
		}
		if !ok {
			return Statistics{}, apperr.Invalid("currency %s has no rate: ask for USD or a currency with a rate.", cur)
		}
	}
	q := Query{Range: r, Currency: cur}
	switch {
	case req.MerchantID != 0:
		if !scope.Global && !slices.Contains(scope.Merchants, req.MerchantID) {
			return Statistics{}, apperr.NotFound("The merchant %d was not found.", req.MerchantID)
		}
		q.Merchants = []int32{req.MerchantID}
	case !scope.Global:
		q.Merchants = append([]int32{}, scope.Merchants...)
		if len(q.Merchants) == 0 {
			// A user of no merchant sees nothing; -1 is no merchant's id.
			q.Merchants = []int32{-1}
		}
	}
	q.Counts = CountSegments(r)
	q.Cash = PlanCash(r)
	f, err := s.store.Figures(ctx, q)
	if err != nil {
		return Statistics{}, fmt.Errorf("statistics figures: %w", err)
	}
	return compose(q, scope.Global, f), nil
}

// compose turns the raw rows into the response's figures.
func compose(q Query, global bool, f Figures) Statistics {
	st := Statistics{Currency: q.Currency, Range: q.Range, AsOf: f.AsOf}
	providers := map[int32]*ProviderCount{}
	merchants := map[int32]*MerchantCount{}
	for _, c := range f.Counts {
		st.Total += c.N
		success := int64(0)
		switch FamilyOf(c.Status) {
		case FamilySuccessful:
			st.Successful += c.N
			success = c.N
		case FamilyPending:
			st.Pending += c.N
		case FamilyRefunded:
			st.Refunded += c.N
		case FamilyValidationFailed:
			st.ValidationFailed += c.N
		case FamilyPSPError:
			st.PSPError += c.N
		case FamilyCancelled:
			st.Cancelled += c.N
		case FamilyNotConfirmed:
			st.NotConfirmed += c.N
		default:
			st.Failed += c.N
		}
		p := providers[c.ProviderID]
		if p == nil {
			p = &ProviderCount{ID: c.ProviderID, Name: f.ProviderNames[c.ProviderID]}
			providers[c.ProviderID] = p
		}
		p.Count += c.N
		p.Successful += success
		m := merchants[c.MerchantID]
		if m == nil {
			m = &MerchantCount{ID: c.MerchantID, Name: f.MerchantNames[c.MerchantID]}
			merchants[c.MerchantID] = m
		}
		m.Count += c.N
		m.Successful += success
	}
	for _, p := range providers {
		if p.Count > 0 {
			st.ByProvider = append(st.ByProvider, *p)
		}
	}
	slices.SortFunc(st.ByProvider, func(a, b ProviderCount) int { return byCount(a.Count, b.Count, a.ID, b.ID) })
	if global {
		for _, m := range merchants {
			if m.Count > 0 {
				st.ByMerchant = append(st.ByMerchant, *m)
			}
		}
		slices.SortFunc(st.ByMerchant, func(a, b MerchantCount) int { return byCount(a.Count, b.Count, a.ID, b.ID) })
	}

	days := q.Range.Days()
	st.CashIn = CashFlow{Amount: "0", Days: make([]CashDay, days)}
	st.CashOut = CashFlow{Amount: "0", Days: make([]CashDay, days)}
	for i := range days {
		start := q.Range.From.Add(time.Duration(i) * 24 * time.Hour)
		st.CashIn.Days[i] = CashDay{Start: start, Amount: "0"}
		st.CashOut.Days[i] = CashDay{Start: start, Amount: "0"}
	}
	byMerchant := map[int32]map[int32]*MerchantCash{TypeDeposit: {}, TypeWithdrawal: {}}
	unconverted := map[[2]string]*Unconverted{}
	for _, c := range f.Cash {
		flow := &st.CashIn
		if c.Type == TypeWithdrawal {
			flow = &st.CashOut
		} else if c.Type != TypeDeposit {
			continue
		}
		switch {
		case c.Unconverted != "":
			// Only the whole-range rows, so that each sum is reported once.
			if c.Day >= 0 || c.MerchantID != 0 {
				continue
			}
			key := [2]string{c.Unconverted, fmt.Sprint(c.Type)}
			u := unconverted[key]
			if u == nil {
				u = &Unconverted{Currency: c.Unconverted, Type: c.Type, Amount: "0"}
				unconverted[key] = u
			}
			u.Amount = AddDecimal(u.Amount, c.Amount)
			u.Count += c.N
			flow.Count += c.N
		case c.Day >= 0:
			if c.Day < days {
				flow.Days[c.Day].Amount = AddDecimal(flow.Days[c.Day].Amount, c.Amount)
				flow.Days[c.Day].Count += c.N
			}
		case c.MerchantID != 0:
			if !global {
				continue
			}
			m := byMerchant[c.Type][c.MerchantID]
			if m == nil {
				m = &MerchantCash{ID: c.MerchantID, Name: f.MerchantNames[c.MerchantID], Amount: "0"}
				byMerchant[c.Type][c.MerchantID] = m
			}
			m.Amount = AddDecimal(m.Amount, c.Amount)
			m.Count += c.N
		default:
			flow.Amount = AddDecimal(flow.Amount, c.Amount)
			flow.Count += c.N
		}
	}
	for _, u := range unconverted {
		st.Unconverted = append(st.Unconverted, *u)
	}
	slices.SortFunc(st.Unconverted, func(a, b Unconverted) int {
		if a.Currency != b.Currency {
			if a.Currency < b.Currency {
				return -1
			}
			return 1
		}
		return int(a.Type - b.Type)
	})
	if global {
		st.CashInByMerchant = sortedCash(byMerchant[TypeDeposit])
		st.CashOutByMerchant = sortedCash(byMerchant[TypeWithdrawal])
	}
	return st
}

// byCount orders most first, then by id.
func byCount(a, b int64, ida, idb int32) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return int(ida - idb)
}

// sortedCash returns a type's merchants, largest amount first.
func sortedCash(m map[int32]*MerchantCash) []MerchantCash {
	out := make([]MerchantCash, 0, len(m))
	for _, v := range m {
		out = append(out, *v)
	}
	slices.SortFunc(out, func(a, b MerchantCash) int {
		if c := compareDecimal(b.Amount, a.Amount); c != 0 {
			return c
		}
		return int(a.ID - b.ID)
	})
	return out
}
