// Package radar is the stuck-money radar (docs/contracts-radar.md): the
// SLAs that say when a non-final transaction is overdue (per provider, pay
// type and direction, the most specific row winning), and the list of
// overdue transactions, oldest first, keyset paged, with the provider's
// current status asked for the rows of the page only, with bounded
// concurrency and a timeout, and cached briefly.
package radar

import (
	"context"
	"encoding/json"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
)

// Limits of the radar.
const (
	// MinSLASeconds and MaxSLASeconds bound an SLA's duration.
	MinSLASeconds = 1
	MaxSLASeconds = 30 * 24 * 60 * 60
	// MaxSLAs is the most SLA rows there may be.
	MaxSLAs = 1000
	// DefaultTake and MaxTake are the list's page sizes.
	DefaultTake = 50
	MaxTake     = 100
	// Concurrency is how many status inquiries one list runs at once.
	Concurrency = 8
	// InquiryTimeout bounds one status inquiry.
	InquiryTimeout = 5 * time.Second
	// CacheTTL is how long a provider's answer is reused.
	CacheTTL = 30 * time.Second
	// MaxWalk is how long a page token is good for: a walk through the
	// pages measures overdue at its first page's time.
	MaxWalk = 24 * time.Hour
)

// The states of a provider status (RadarProviderStatus.state).
const (
	StateSuccess   = "success"
	StateFailed    = "failed"
	StatePending   = "pending"
	StateCancelled = "cancelled"
	StateError     = "error"
	StateNotAsked  = "not_asked"
)

// SLA says when a non-final transaction of a provider, pay type and
// direction is overdue. Zero keys mean any.
type SLA struct {
	ID           int64
	ProviderID   int32
	ProviderName string
	PayTypeID    int32
	PayTypeName  string
	// Type is 1 deposits, 2 withdrawals, 0 both.
	Type int16
	// Seconds after its creation when a transaction is overdue.
	Seconds   int64
	UpdatedAt time.Time
	UpdatedBy string
}

// IsDefault reports the all-any row, which always exists.
func (s SLA) IsDefault() bool { return s.ProviderID == 0 && s.PayTypeID == 0 && s.Type == 0 }

// Weight is how specific s is: 4 for a named provider, 2 for a named pay
// type, 1 for a named direction. Of the SLAs matching a transaction, the
// heaviest wins (postgres's overdue query orders by the same sum).
func (s SLA) Weight() int {
	w := 0
	if s.ProviderID != 0 {
		w += 4
	}
	if s.PayTypeID != 0 {
		w += 2
	}
	if s.Type != 0 {
		w++
	}
	return w
}

// Matches reports whether s applies to a transaction of that provider, pay
// type and direction.
func (s SLA) Matches(providerID, payTypeID int32, typ int16) bool {
	return (s.ProviderID == 0 || s.ProviderID == providerID) && (s.PayTypeID == 0 || s.PayTypeID == payTypeID) &&
		(s.Type == 0 || s.Type == typ)
}

// Winner returns the SLA of slas that applies to a transaction of that
// provider, pay type and direction (false when none does).
func Winner(slas []SLA, providerID, payTypeID int32, typ int16) (SLA, bool) {
	var best SLA
	found := false
	for _, s := range slas {
		if s.Matches(providerID, payTypeID, typ) && (!found || s.Weight() > best.Weight()) {
			best, found = s, true
		}
	}
	return best, found
}

// Key is a transaction's place in the radar's order: oldest first.
type Key struct {
	CreatedAt time.Time
	ID        int64
}

// Query is what the store reads for one page.
type Query struct {
	// Scope limits the merchants.
	Scope merchant.Scope
	// ProviderID, CollabID, MerchantID select one each when not 0.
	ProviderID, CollabID, MerchantID int32
	// Type selects a direction when not 0.
	Type int16
	// AsOf is the instant overdue is measured at.
	AsOf time.Time
	// After, when set, starts after that key.
	After *Key
	// Limit is the most rows to return.
	Limit int
}

// Row is an overdue transaction as the store reads it, with its winning
// SLA.
type Row struct {
	ID           int64
	ReferenceID  string
	MerchantID   int32
	MerchantName string
	CollabID     int32
	ProviderID   int32
	ProviderName string
	PayTypeID    int32
	PayTypeName  string
	Type         int16
	Status       payment.Status
	Amount       string
	Currency     string
	ProviderTID  string
	CreatedAt    time.Time
	SLAID        int64
	SLASeconds   int64
}

// Key is r's place in the order.
func (r Row) Key() Key { return Key{CreatedAt: r.CreatedAt, ID: r.ID} }

// ProviderStatus is a provider's answer to a status inquiry.
type ProviderStatus struct {
	State     string    `json:"state"`
	Message   string    `json:"message"`
	CheckedAt time.Time `json:"checkedAt"`
	Cached    bool      `json:"-"`
}

// Final reports a provider's final word: success, failed or cancelled.
func (p ProviderStatus) Final() bool {
	return p.State == StateSuccess || p.State == StateFailed || p.State == StateCancelled
}

// Item is one row of the radar.
type Item struct {
	Row
	// Age is AsOf minus the creation time; Late is Age minus the SLA.
	Age, Late time.Duration
	Provider  ProviderStatus
	// Mismatch is set when the provider's word is final and ours is not.
	Mismatch bool
}

// Page is one page of the radar.
type Page struct {
	Items []Item
	// Next is the token of the next page, "" on the last.
	Next string
	AsOf time.Time
}

// Journal is the store transaction a change is written in.
type Journal = activity.Journal

// Store keeps the SLAs and reads the overdue transactions.
type Store interface {
	// SLAs returns every SLA with its names, the default first.
	SLAs(ctx context.Context) ([]SLA, error)
	// ProviderName returns a provider's name (not found).
	ProviderName(ctx context.Context, id int32) (string, error)
	// PayTypeName returns a pay type's name (not found).
	PayTypeName(ctx context.Context, id int32) (string, error)
	// CollabMerchant returns the merchant of a collab (not found).
	CollabMerchant(ctx context.Context, collabID int32) (int32, error)
	// MerchantExists reports whether a merchant exists.
	MerchantExists(ctx context.Context, id int32) (bool, error)
	// Overdue returns up to q.Limit non-final transactions overdue at
	// q.AsOf under their winning SLA, oldest first, after q.After.
	Overdue(ctx context.Context, q Query) ([]Row, error)
	// SaveSLA writes s by its key (provider, pay type, direction) in one
	// store transaction: it changes the row of that key, or adds one
	// (conflict when there are MaxSLAs already), and calls then with the row
	// before (nil for a new one) and after. Nothing is written when then
	// fails.
	SaveSLA(ctx context.Context, s SLA, then func(ctx context.Context, j Journal, old *SLA, stored SLA) error) (SLA, error)
	// DeleteSLA removes SLA id in one store transaction after check accepted
	// it, and calls then (not found for an unknown id).
	DeleteSLA(ctx context.Context, id int64, check func(old SLA) error, then func(ctx context.Context, j Journal, old SLA) error) error
}

// Inquirer asks a transaction's provider for its status. It never fails: a
// failure is an answer of state error (or not_asked).
type Inquirer func(ctx context.Context, r Row) ProviderStatus

// Cache keeps providers' answers for a while, by transaction id.
type Cache interface {
	// Get returns the cached answers of ids (absent ids are not cached).
	Get(ctx context.Context, ids []int64) (map[int64]ProviderStatus, error)
	// Set caches one answer for ttl.
	Set(ctx context.Context, id int64, p ProviderStatus, ttl time.Duration) error
}

// marshal is json.Marshal for the activity log's values.
func marshal(v any) json.RawMessage {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return raw
}
