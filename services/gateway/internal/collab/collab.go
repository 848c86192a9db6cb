// Package collab holds the gateway's providers, pay types and the
// collaborations (collabs) between merchants and providers: their settings,
// channel switches and limits; the reading of the activity log that records
// every change to them (entries are package activity's); and the global
// maintenance switch.
//
// Every change runs in one store transaction that locks what it changes,
// validates against the locked state, writes the change, one activity log
// entry with the old and new values, and an ActivityRecorded event through
// the outbox. A caller outside a collab's merchant scope gets not found, and
// nothing is written on any error.
package collab

import (
	"context"

	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
)

// PayType is a way of paying, such as GCash.
type PayType struct {
	// ID is the pay type's numeric id.
	ID int32
	// Name is the display name, e.g. "GCash".
	Name string
	// Code is the short code, e.g. "GCASH".
	Code string
}

// Label returns "Name (CODE)", as the console names a pay type.
func (p PayType) Label() string { return p.Name + " (" + p.Code + ")" }

// ProviderPayType is a pay type as a provider offers it.
type ProviderPayType struct {
	PayType
	// CashIn is true when the provider takes deposits with this pay type.
	CashIn bool
	// CashOut is true when the provider pays withdrawals with this pay type.
	CashOut bool
}

// Provider is a payment provider.
type Provider struct {
	// ID is the provider's numeric id.
	ID int32
	// Name is the display name.
	Name string
	// IsEnabled is false when the provider is switched off for everyone.
	IsEnabled bool
	// SupportsCashIn is true when the provider takes deposits.
	SupportsCashIn bool
	// SupportsCashOut is true when the provider pays withdrawals.
	SupportsCashOut bool
	// SupportsPolling is true when the gateway polls it for statuses.
	SupportsPolling bool
	// SupportsBalance is true when it reports a balance.
	SupportsBalance bool
	// PathSegment names the provider in the gateway's provider URLs.
	PathSegment string
	// PayTypes are the pay types it offers, ordered by id.
	PayTypes []ProviderPayType
}

// PayType returns the provider's pay type with that id.
func (p Provider) PayType(id int32) (ProviderPayType, bool) {
	for _, pt := range p.PayTypes {
		if pt.ID == id {
			return pt, true
		}
	}
	return ProviderPayType{}, false
}

// MerchantRef names a collab's merchant.
type MerchantRef struct {
	// ID is the merchant's id.
	ID int32
	// Name is its display name.
	Name string
	// Disabled is true when the merchant's payments are refused.
	Disabled bool
}

// ProviderRef is what a collab needs to know of its provider.
type ProviderRef struct {
	// ID is the provider's id.
	ID int32
	// Name is its display name.
	Name string
	// IsEnabled is the provider's own switch.
	IsEnabled bool
	// SupportsCashIn is true when the provider takes deposits.
	SupportsCashIn bool
	// SupportsCashOut is true when the provider pays withdrawals.
	SupportsCashOut bool
}

// CollabPayType is a pay type on a collab.
type CollabPayType struct {
	// ID identifies the pay type on this collab (collabPayTypeId).
	ID int32
	// ProviderPayType is the pay type and what the provider supports of it.
	ProviderPayType
	// IsCashInEnabled is the collab's cash-in switch for the pay type.
	IsCashInEnabled bool
	// IsCashOutEnabled is the collab's cash-out switch for the pay type.
	IsCashOutEnabled bool
	// Limits are the pay type's own limits.
	Limits Limits
}

// Collab is the collaboration of one merchant with one provider.
type Collab struct {
	// ID is the collab's numeric id.
	ID int32
	// Merchant is the collab's merchant.
	Merchant MerchantRef
	// Provider is the collab's provider.
	Provider ProviderRef
	// Settings are the collab's switches, position and mode.
	Settings Settings
	// Limits are the collab's limits.
	Limits Limits
	// PayTypes are the pay types on the collab, ordered by pay type id.
	PayTypes []CollabPayType
}

// Name returns "Merchant × Provider", as activity messages name a collab.
func (c Collab) Name() string { return c.Merchant.Name + " × " + c.Provider.Name }

// SupportsDeposits is true when the provider takes deposits and the collab's
// cash-in is on.
func (c Collab) SupportsDeposits() bool {
	return c.Provider.SupportsCashIn && c.Settings.IsCashInEnabled
}

// SupportsWithdrawals is true when the provider pays withdrawals and the
// collab's cash-out is on.
func (c Collab) SupportsWithdrawals() bool {
	return c.Provider.SupportsCashOut && c.Settings.IsCashOutEnabled
}

// PayTypeSupportsDeposits is true when the pay type supports cash-in and the
// collab's cash-in is on.
func (c Collab) PayTypeSupportsDeposits(pt CollabPayType) bool {
	return pt.CashIn && c.Settings.IsCashInEnabled
}

// PayTypeSupportsWithdrawals is true when the pay type supports cash-out and
// the collab's cash-out is on.
func (c Collab) PayTypeSupportsWithdrawals(pt CollabPayType) bool {
	return pt.CashOut && c.Settings.IsCashOutEnabled
}

// payType returns the collab's pay type with that pay type id.
func (c Collab) payType(payTypeID int32) (int, bool) {
	for i, pt := range c.PayTypes {
		if pt.PayType.ID == payTypeID {
			return i, true
		}
	}
	return -1, false
}

// CollabFilter selects collabs.
type CollabFilter struct {
	// Scope limits the merchants.
	Scope merchant.Scope
	// MerchantID, when not 0, selects one merchant's collabs.
	MerchantID int32
	// ProviderID, when not 0, selects one provider's collabs.
	ProviderID int32
}

// Store reads providers, collabs, the maintenance switch and the activity
// log, and runs the writes of one change in a transaction.
type Store interface {
	// Providers returns every provider with its pay types, ordered by id.
	Providers(ctx context.Context) ([]Provider, error)
	// Provider returns one provider with its pay types. Returns a not-found
	// error when there is none.
	Provider(ctx context.Context, id int32) (Provider, error)
	// Merchant returns one merchant. Returns a not-found error when there is
	// none.
	Merchant(ctx context.Context, id int32) (MerchantRef, error)
	// Collabs returns the collabs the filter selects, ordered by id.
	Collabs(ctx context.Context, f CollabFilter) ([]Collab, error)
	// Collab returns one collab. Returns a not-found error when there is none.
	Collab(ctx context.Context, id int32) (Collab, error)
	// Tx runs fn in one database transaction, committed when fn returns nil.
	// fn's error is returned as it is.
	Tx(ctx context.Context, fn func(Tx) error) error
}

// Tx is the set of locking reads and writes available inside Store.Tx.
type Tx interface {
	// Merchant returns one merchant. Returns a not-found error when there is
	// none.
	Merchant(ctx context.Context, id int32) (MerchantRef, error)
	// Provider returns one provider with its pay types. Returns a not-found
	// error when there is none.
	Provider(ctx context.Context, id int32) (Provider, error)
	// ProviderForUpdate is Provider, locking the provider's row until the
	// transaction ends.
	ProviderForUpdate(ctx context.Context, id int32) (Provider, error)
	// CollabForUpdate returns one collab, locking its row until the
	// transaction ends. Returns a not-found error when there is none.
	CollabForUpdate(ctx context.Context, id int32) (Collab, error)
	// CollabIDOfPayType returns the id of the collab a collab pay type
	// belongs to. Returns a not-found error when there is none.
	CollabIDOfPayType(ctx context.Context, collabPayTypeID int32) (int32, error)
	// InsertCollab stores a new collab (its settings and limits, not its pay
	// types) and returns its id. Returns a conflict error when the merchant
	// already has a collab with the provider.
	InsertCollab(ctx context.Context, c Collab) (int32, error)
	// UpdateCollab stores a collab's settings and limits.
	UpdateCollab(ctx context.Context, c Collab) error
	// InsertCollabPayTypes adds pay types to a collab. Returns a conflict
	// error when one is already on it.
	InsertCollabPayTypes(ctx context.Context, collabID, providerID int32, pts []CollabPayType) error
	// UpdateCollabPayType stores a collab pay type's switches and limits.
	UpdateCollabPayType(ctx context.Context, pt CollabPayType) error
	// DeleteCollabPayTypes removes pay types from a collab.
	DeleteCollabPayTypes(ctx context.Context, collabID int32, payTypeIDs []int32) error
	// SetProviderEnabled stores a provider's switch.
	SetProviderEnabled(ctx context.Context, id int32, enabled bool) error
	// MarkConsumed records that the event with that id (another service's)
	// has been applied; false when it already was.
	MarkConsumed(ctx context.Context, eventID string) (bool, error)
	// InsertActivity stores an activity log entry and returns its id.
	InsertActivity(ctx context.Context, a activity.Entry) (int64, error)
	// Publish queues an event to leave with this transaction (outbox).
	Publish(ctx context.Context, event proto.Message) error
}
