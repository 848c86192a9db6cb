// Package balance answers the balance a collab's provider reports (spec 02
// "Balances", §3 Balance item, §7; docs/contracts-balances.md): it asks the
// provider with the collab's credentials, reads the answer (the amount
// under balance, amount, balanceAmount or availableBalance, searched to
// depth 3, with the date, currency, account, mode and success markers), and
// keeps it in a short-lived cache per collab. Concurrent asks for one collab
// share one call. A provider that fails or does not answer in time gives an
// item with status "error" and no amount, never an error of the call.
package balance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/paygate/paygate/services/gateway/internal/credential"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Statuses of a balance (spec 02 §4).
const (
	StatusSuccess = "success"
	StatusUnknown = "unknown"
	StatusError   = "error"
)

// Defaults of an item whose provider does not say (spec 02 §3, §9).
const (
	DefaultCurrency    = "PHP"
	DefaultAccountType = "Standard"
)

// DefaultTTL is how long a balance is cached when no TTL func is given.
const DefaultTTL = 15 * time.Second

// Item is one collab's balance (spec 02 §3 Balance item).
type Item struct {
	CollabID           int32             `json:"collabId"`
	PathSegment        string            `json:"providerPathSegment"`
	Amount             string            `json:"amount"`
	Currency           string            `json:"currency"`
	UpdatedAt          string            `json:"updatedAt"`
	IsLive             bool              `json:"isLive"`
	AccountID          string            `json:"accountId"`
	AccountType        string            `json:"accountType"`
	AdditionalBalances map[string]string `json:"additionalBalances"`
	Status             string            `json:"status"`
	// RawData is the provider's answer as received (decoded JSON, or its
	// text); on error, {"error": message}.
	RawData any `json:"rawData"`
	// Message says why there is no amount (error and unknown).
	Message string `json:"message"`
}

// Target is a collab as the balance call needs it.
type Target struct {
	CollabID        int32
	MerchantID      int32
	ProviderID      int32
	ProviderName    string
	PathSegment     string
	SupportsBalance bool
	// BaseURL is the provider API's root; empty when not connected.
	BaseURL string
}

// Store finds collabs.
type Store interface {
	// BalanceTarget returns a collab with its provider (not found).
	BalanceTarget(ctx context.Context, collabID int32) (Target, error)
	// BalanceCollabs returns up to limit collabs of the merchants in scope
	// whose provider reports a balance, by merchant then provider name.
	BalanceCollabs(ctx context.Context, scope merchant.Scope, limit int) ([]Listed, error)
}

// Listed is a collab as the Balances page lists it: the Credentials page's
// row (both list the collabs in scope with their provider's path segment).
type Listed = credential.Listed

// MaxListed bounds the collabs a list answers.
const MaxListed = credential.MaxListed

// Collabs lists the collabs in scope whose provider reports a balance (at
// most MaxListed).
func (s *Service) Collabs(ctx context.Context, scope merchant.Scope) ([]Listed, error) {
	return s.store.BalanceCollabs(ctx, scope, MaxListed)
}

// Answer is a provider's answer to a balance call.
type Answer struct {
	StatusCode int
	Body       []byte
}

// Provider asks a provider for the balance.
type Provider interface {
	// Balance asks the provider at baseURL for the balance of the account
	// credentials identify. An error means no answer (network, timeout).
	Balance(ctx context.Context, baseURL string, credentials map[string]any) (Answer, error)
}

// Cache keeps items for a while.
type Cache interface {
	// Get returns the cached item of key; ok is false on a miss.
	Get(ctx context.Context, key string) (item Item, ok bool, err error)
	// Set caches item under key for ttl.
	Set(ctx context.Context, key string, item Item, ttl time.Duration) error
	// Delete drops key's item.
	Delete(ctx context.Context, key string) error
}

// Options configure a Service.
type Options struct {
	// TTL returns how long to cache a balance (DefaultTTL when nil or not
	// positive); read on every miss, so a setting can change it live.
	TTL func(ctx context.Context) time.Duration
	// Timeout bounds one provider call (10s when 0).
	Timeout time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Service answers balances.
type Service struct {
	store       Store
	credentials func(ctx context.Context, collabID int32) (map[string]any, error)
	provider    Provider
	cache       Cache
	opts        Options
	group       singleflight.Group
}

// NewService returns the service: targets from store, credentials from
// credentials (a collab's plain credentials), answers from provider, cached
// in cache.
func NewService(store Store, credentials func(ctx context.Context, collabID int32) (map[string]any, error),
	provider Provider, cache Cache, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	return &Service{store: store, credentials: credentials, provider: provider, cache: cache, opts: opts}
}

// Get answers the balance of collab collabID at provider segment for a
// caller with scope. A collab that does not exist, is outside scope or is
// not the provider's is not found; a provider that reports no balance is
// invalid. A failing provider is an item with status error.
func (s *Service) Get(ctx context.Context, scope merchant.Scope, segment string, collabID int32) (Item, error) {
	if collabID <= 0 {
		return Item{}, apperr.Invalid("collabId must be the id of a collaboration (a positive number).")
	}
	tg, err := s.store.BalanceTarget(ctx, collabID)
	if apperr.KindOf(err) == apperr.KindNotFound || err == nil && !scope.Includes(tg.MerchantID) {
		return Item{}, apperr.NotFound("Collab %d was not found.", collabID)
	}
	if err != nil {
		return Item{}, fmt.Errorf("collab %d of a balance: %w", collabID, err)
	}
	if tg.PathSegment != segment {
		return Item{}, apperr.NotFound("Collab %d is not a collaboration of provider %q.", collabID, segment)
	}
	if !tg.SupportsBalance {
		return Item{}, apperr.Invalid("Provider %s (%s) does not report balances.", tg.ProviderName, segment)
	}
	key := strconv.Itoa(int(collabID))
	if it, ok, err := s.cache.Get(ctx, key); err == nil && ok {
		return it, nil
	}
	// One call per collab at a time: the others wait for its answer. The
	// call is not the first caller's: it outlives that caller's cancel.
	v, err, _ := s.group.Do(key, func() (any, error) {
		cctx := context.WithoutCancel(ctx)
		if it, ok, err := s.cache.Get(cctx, key); err == nil && ok {
			return it, nil
		}
		it := s.ask(cctx, tg)
		ttl := DefaultTTL
		if s.opts.TTL != nil {
			if d := s.opts.TTL(cctx); d > 0 {
				ttl = d
			}
		}
		// A cache that cannot be written costs a provider call, no more.
		_ = s.cache.Set(cctx, key, it, ttl)
		return it, nil
	})
	if err != nil {
		return Item{}, err
	}
	return v.(Item), nil
}

// Forget drops a collab's cached balance (its credentials changed), so the
// next ask reaches the provider with the new ones. A cache that cannot be
// reached keeps the old answer until it expires.
func (s *Service) Forget(ctx context.Context, collabID int32) {
	_ = s.cache.Delete(ctx, strconv.Itoa(int(collabID)))
}

// ask calls the provider and reads its answer into an item.
func (s *Service) ask(ctx context.Context, tg Target) Item {
	now := s.opts.Now().UTC().Format(time.RFC3339)
	fail := func(msg string) Item {
		return Item{CollabID: tg.CollabID, PathSegment: tg.PathSegment, Currency: DefaultCurrency, UpdatedAt: now,
			AccountType: DefaultAccountType, AdditionalBalances: map[string]string{}, Status: StatusError,
			RawData: map[string]any{"error": msg}, Message: msg}
	}
	if tg.BaseURL == "" {
		return fail(fmt.Sprintf("%s is not connected: the gateway has no address for its API.", tg.ProviderName))
	}
	creds, err := s.credentials(ctx, tg.CollabID)
	if err != nil {
		return fail("The collab's credentials could not be opened; save them again.")
	}
	cctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	ans, err := s.provider.Balance(cctx, tg.BaseURL, creds)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(cctx.Err(), context.DeadlineExceeded) {
			return fail(fmt.Sprintf("%s did not answer within %s.", tg.ProviderName, s.opts.Timeout))
		}
		return fail(fmt.Sprintf("%s could not be reached.", tg.ProviderName))
	}
	it := Read(ans.Body, now)
	it.CollabID, it.PathSegment = tg.CollabID, tg.PathSegment
	if ans.StatusCode < 200 || ans.StatusCode > 299 {
		it.Status, it.Amount = StatusError, ""
		it.Message = fmt.Sprintf("%s answered HTTP %d.", tg.ProviderName, ans.StatusCode)
	}
	return it
}

// Read reads a provider's balance answer (now is the time to report when
// it names none). The amount is searched to depth 3 under balance, amount,
// balanceAmount or availableBalance, shallowest first; status is success
// with an amount, unknown without one, and error when the answer says it
// failed (success false, or a status of error, failed or fail).
func Read(body []byte, now string) Item {
	it := Item{Currency: DefaultCurrency, UpdatedAt: now, AccountType: DefaultAccountType,
		AdditionalBalances: map[string]string{}, Status: StatusUnknown}
	var exact any
	dec := json.NewDecoder(bytesReader(body))
	dec.UseNumber()
	if err := dec.Decode(&exact); err != nil {
		it.RawData = string(body)
		it.Message = "The provider's answer is not JSON."
		return it
	}
	var plain any
	_ = json.Unmarshal(body, &plain)
	it.RawData = plain
	r := search(exact)
	if r.amount != "" {
		it.Amount, it.Status = r.amount, StatusSuccess
	}
	if r.currency != "" {
		it.Currency = r.currency
	}
	if r.date != "" {
		it.UpdatedAt = r.date
	}
	if r.account != "" {
		it.AccountID = r.account
	}
	if r.accountType != "" {
		it.AccountType = r.accountType
	}
	it.IsLive = r.live
	for k, v := range r.additional {
		it.AdditionalBalances[k] = v
	}
	if r.failed {
		it.Status, it.Amount = StatusError, ""
		it.Message = "The provider says the balance request failed."
	} else if it.Status == StatusUnknown {
		it.Message = "The provider's answer holds no balance."
	}
	return it
}
