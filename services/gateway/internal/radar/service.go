package radar

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Service serves the radar and its SLAs.
type Service struct {
	store   Store
	inquire Inquirer
	cache   Cache
	now     func() time.Time
	log     *slog.Logger
}

// NewService returns the radar on store, asking providers through inquire
// and caching their answers in cache, with now the clock.
func NewService(store Store, inquire Inquirer, cache Cache, now func() time.Time, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	return &Service{store: store, inquire: inquire, cache: cache, now: now, log: log}
}

// Filter is a request for one page of the radar.
type Filter struct {
	ProviderID, CollabID, MerchantID int32
	// Type is 1 deposits, 2 withdrawals, 0 both.
	Type int32
	// Take is the page size, nil for DefaultTake.
	Take *int32
	// PageToken is the previous page's Next, "" for the first page.
	PageToken string
	// Refresh asks the providers again, ignoring the cache.
	Refresh bool
}

// List returns the page of overdue transactions in scope that f selects.
// Errors: invalid (a bad filter, naming its JSON field), not found (a
// merchant or collab outside scope).
func (s *Service) List(ctx context.Context, scope merchant.Scope, f Filter) (Page, error) {
	q := Query{Scope: scope, ProviderID: f.ProviderID, CollabID: f.CollabID, MerchantID: f.MerchantID, Limit: DefaultTake}
	if f.Type < 0 || f.Type > 2 {
		return Page{}, apperr.Invalid("transactionType must be 1 (deposits), 2 (withdrawals) or 0 (both).")
	}
	q.Type = int16(f.Type)
	if f.Take != nil {
		if *f.Take < 1 || *f.Take > MaxTake {
			return Page{}, apperr.Invalid("take must be from 1 to %d.", MaxTake)
		}
		q.Limit = int(*f.Take)
	}
	if f.PageToken != "" {
		asOf, after, err := decodeToken(f.PageToken)
		if now := s.now(); err != nil || asOf.After(now.Add(time.Minute)) || asOf.Before(now.Add(-MaxWalk)) ||
			after.CreatedAt.After(asOf) {
			return Page{}, apperr.Invalid("pageToken is not a page of this list (or is over 24 hours old): start again from the first page.")
		}
		q.AsOf, q.After = asOf, &after
	} else {
		q.AsOf = s.now().UTC().Truncate(time.Microsecond)
	}
	if err := s.checkScope(ctx, scope, f); err != nil {
		return Page{}, err
	}
	one := q
	one.Limit++ // one more tells whether there is a next page
	rows, err := s.store.Overdue(ctx, one)
	if err != nil {
		return Page{}, fmt.Errorf("read overdue transactions: %w", err)
	}
	p := Page{AsOf: q.AsOf}
	if len(rows) > q.Limit {
		rows = rows[:q.Limit]
		p.Next = encodeToken(q.AsOf, rows[len(rows)-1].Key())
	}
	statuses := s.providerStatuses(ctx, rows, f.Refresh)
	p.Items = make([]Item, len(rows))
	for i, r := range rows {
		age := q.AsOf.Sub(r.CreatedAt)
		p.Items[i] = Item{Row: r, Age: age, Late: age - time.Duration(r.SLASeconds)*time.Second, Provider: statuses[i],
			Mismatch: statuses[i].Final() && !r.Status.Final()}
	}
	return p, nil
}

// checkScope refuses a merchant or collab filter outside scope (or
// unknown): not found.
func (s *Service) checkScope(ctx context.Context, scope merchant.Scope, f Filter) error {
	if f.MerchantID != 0 {
		ok, err := s.store.MerchantExists(ctx, f.MerchantID)
		if err != nil {
			return err
		}
		if !ok || !scope.Includes(f.MerchantID) {
			return apperr.NotFound("Merchant %d was not found.", f.MerchantID)
		}
	}
	if f.CollabID != 0 {
		m, err := s.store.CollabMerchant(ctx, f.CollabID)
		if apperr.KindOf(err) == apperr.KindNotFound || (err == nil && !scope.Includes(m)) {
			return apperr.NotFound("Collab %d was not found.", f.CollabID)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// providerStatuses answers the provider's status of each row: from the
// cache unless refresh, otherwise (and for the rows not cached) asked, at
// most Concurrency at once, each within InquiryTimeout, and cached.
func (s *Service) providerStatuses(ctx context.Context, rows []Row, refresh bool) []ProviderStatus {
	out := make([]ProviderStatus, len(rows))
	if len(rows) == 0 {
		return out
	}
	cached := map[int64]ProviderStatus{}
	if !refresh {
		ids := make([]int64, len(rows))
		for i, r := range rows {
			ids[i] = r.ID
		}
		var err error
		if cached, err = s.cache.Get(ctx, ids); err != nil {
			s.log.WarnContext(ctx, "read cached provider statuses; asking the providers", "error", err)
			cached = map[int64]ProviderStatus{}
		}
	}
	sem := make(chan struct{}, Concurrency)
	var wg sync.WaitGroup
	for i, r := range rows {
		if p, ok := cached[r.ID]; ok {
			p.Cached = true
			out[i] = p
			continue
		}
		if r.ProviderTID == "" {
			out[i] = ProviderStatus{State: StateNotAsked,
				Message: "The provider has not given this transaction an id yet, so it cannot be asked."}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				out[i] = ProviderStatus{State: StateError, Message: "The request ended before the provider was asked."}
				return
			}
			defer func() { <-sem }()
			out[i] = s.ask(ctx, r)
		}()
	}
	wg.Wait()
	return out
}

// ask asks r's provider within InquiryTimeout and caches the answer (not
// a not_asked one, which asking again does not change).
func (s *Service) ask(ctx context.Context, r Row) ProviderStatus {
	ictx, cancel := context.WithTimeout(ctx, InquiryTimeout)
	defer cancel()
	p := s.inquire(ictx, r)
	if p.State == StateError && errors.Is(ictx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		p.Message = fmt.Sprintf("The provider did not answer within %s.", InquiryTimeout)
	}
	if p.CheckedAt.IsZero() && p.State != StateNotAsked {
		p.CheckedAt = s.now().UTC()
	}
	if ctx.Err() == nil {
		if err := s.cache.Set(ctx, r.ID, p, CacheTTL); err != nil {
			s.log.WarnContext(ctx, "cache provider status", "transaction_id", r.ID, "error", err)
		}
	}
	return p
}

// encodeToken and decodeToken write and read a page token: the list's asOf
// and the last row's key, in microseconds.
func encodeToken(asOf time.Time, k Key) string {
	raw := fmt.Sprintf("%d.%d.%d", asOf.UnixMicro(), k.CreatedAt.UnixMicro(), k.ID)
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

func decodeToken(tok string) (time.Time, Key, error) {
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return time.Time{}, Key{}, err
	}
	parts := strings.Split(string(raw), ".")
	if len(parts) != 3 {
		return time.Time{}, Key{}, errors.New("not three parts")
	}
	var n [3]int64
	for i, p := range parts {
		if n[i], err = strconv.ParseInt(p, 10, 64); err != nil {
			return time.Time{}, Key{}, err
		}
	}
	if n[0] <= 0 || n[2] < 0 {
		return time.Time{}, Key{}, errors.New("out of range")
	}
	return time.UnixMicro(n[0]).UTC(), Key{CreatedAt: time.UnixMicro(n[1]).UTC(), ID: n[2]}, nil
}

// SLAs returns every SLA, the default first.
func (s *Service) SLAs(ctx context.Context) ([]SLA, error) { return s.store.SLAs(ctx) }

// SLAInput is a change of an SLA.
type SLAInput struct {
	ProviderID, PayTypeID, Type int32
	Seconds                     int64
}

// SetSLA adds or changes the SLA of in's key and records the change in the
// activity log. Errors: invalid (naming the JSON field), conflict (MaxSLAs).
func (s *Service) SetSLA(ctx context.Context, actor activity.Actor, in SLAInput) (SLA, error) {
	if in.Seconds < MinSLASeconds || in.Seconds > MaxSLASeconds {
		return SLA{}, apperr.Invalid("overdueAfterSeconds must be a whole number of seconds from %d to %d (30 days).",
			MinSLASeconds, MaxSLASeconds)
	}
	if in.Type < 0 || in.Type > 2 {
		return SLA{}, apperr.Invalid("transactionType must be 1 (deposits), 2 (withdrawals) or 0 (both).")
	}
	if in.ProviderID < 0 {
		return SLA{}, apperr.Invalid("providerId must not be negative.")
	}
	if in.PayTypeID < 0 {
		return SLA{}, apperr.Invalid("payTypeId must not be negative.")
	}
	sla := SLA{ProviderID: in.ProviderID, PayTypeID: in.PayTypeID, Type: int16(in.Type), Seconds: in.Seconds,
		UpdatedAt: s.now().UTC().Truncate(time.Microsecond), UpdatedBy: actor.Username}
	var err error
	if in.ProviderID != 0 {
		if sla.ProviderName, err = s.store.ProviderName(ctx, in.ProviderID); apperr.KindOf(err) == apperr.KindNotFound {
			return SLA{}, apperr.Invalid("providerId %d is not a provider.", in.ProviderID)
		} else if err != nil {
			return SLA{}, err
		}
	}
	if in.PayTypeID != 0 {
		if sla.PayTypeName, err = s.store.PayTypeName(ctx, in.PayTypeID); apperr.KindOf(err) == apperr.KindNotFound {
			return SLA{}, apperr.Invalid("payTypeId %d is not a pay type.", in.PayTypeID)
		} else if err != nil {
			return SLA{}, err
		}
	}
	return s.store.SaveSLA(ctx, sla, func(ctx context.Context, j Journal, old *SLA, stored SLA) error {
		var before any
		if old != nil {
			before = slaValue(*old)
		}
		e := slaEntry(stored, fmt.Sprintf("%s set to %s.", slaName(stored), formatDuration(stored.Seconds)))
		e.OldValue, e.NewValue = marshal(before), marshal(slaValue(stored))
		return activity.Record(ctx, j, actor, e, sla.UpdatedAt)
	})
}

// DeleteSLA deletes an SLA and records it in the activity log. Errors: not
// found, failed precondition (the default).
func (s *Service) DeleteSLA(ctx context.Context, actor activity.Actor, id int64) error {
	if id <= 0 {
		return apperr.NotFound("SLA %d was not found.", id)
	}
	return s.store.DeleteSLA(ctx, id, func(old SLA) error {
		if old.IsDefault() {
			return apperr.FailedPrecondition("The default SLA cannot be deleted: change its time instead.")
		}
		return nil
	}, func(ctx context.Context, j Journal, old SLA) error {
		e := slaEntry(old, slaName(old)+" deleted.")
		e.OldValue, e.NewValue = marshal(slaValue(old)), marshal(nil)
		return activity.Record(ctx, j, actor, e, s.now().UTC().Truncate(time.Microsecond))
	})
}

// slaEntry is the activity entry of a change of s.
func slaEntry(s SLA, message string) activity.Entry {
	e := activity.Entry{ActionType: activity.ActionSettings, Message: message, ProviderID: s.ProviderID,
		ProviderName: s.ProviderName, PayTypeID: s.PayTypeID, PayTypeName: s.PayTypeName, Count: 1}
	switch s.Type {
	case 1:
		e.Channel = activity.ChannelCashIn
	case 2:
		e.Channel = activity.ChannelCashOut
	}
	return e
}

// slaValue is s as the activity log's old and new values show it.
func slaValue(s SLA) map[string]any {
	return map[string]any{"providerId": s.ProviderID, "payTypeId": s.PayTypeID, "transactionType": s.Type,
		"overdueAfterSeconds": s.Seconds}
}

// slaName names s in a sentence: "Radar SLA for GCash, any pay type,
// deposits".
func slaName(s SLA) string {
	provider, payType, dir := "any provider", "any pay type", "both directions"
	if s.ProviderID != 0 {
		provider = s.ProviderName
	}
	if s.PayTypeID != 0 {
		payType = s.PayTypeName
	}
	switch s.Type {
	case 1:
		dir = "deposits"
	case 2:
		dir = "withdrawals"
	}
	return fmt.Sprintf("Radar SLA for %s, %s, %s", provider, payType, dir)
}

// formatDuration writes seconds as Go does (15m0s → 15m, 1h30m0s → 1h30m).
func formatDuration(sec int64) string {
	d := (time.Duration(sec) * time.Second).String()
	if strings.HasSuffix(d, "m0s") {
		d = strings.TrimSuffix(d, "0s")
	}
	if strings.HasSuffix(d, "h0m") {
		d = strings.TrimSuffix(d, "0m")
	}
	return d
}
