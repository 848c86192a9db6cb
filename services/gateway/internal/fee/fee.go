// Package fee keeps the fee rules operators edit on the Fees page (spec 02
// "Fees", §3 Fee, §4, §5; docs/contracts-fees.md): their validation, who may
// see and change which, the conflict check before a save, which fee wins a
// collab's payments, and the what-if preview of a change over the last 30
// days' transactions. Which fee applies and which fees conflict is decided
// by package payment (SelectFee, Wins, Conflicts), the rule the payment path
// uses; this package only asks it. Every change is written with its activity
// log entry in one store transaction.
package fee

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/money"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Paging bounds of the list (spec 02 §9: the Fees page starts at page 1 with
// 5 rows).
const (
	DefaultTake = 5
	MaxTake     = 100
)

// Bounds of a fee's fields.
const (
	MaxPriority = 1_000_000
	// MaxConflicts is how many conflicting fees a check answers at most.
	MaxConflicts = 100
	// PreviewWindow is how far back the preview reads transactions.
	PreviewWindow = 30 * 24 * time.Hour
	// maxPreviewCombos bounds the winners the preview computes (collabs
	// with fees of their own × types × pay types × amount ranges ×
	// currencies).
	maxPreviewCombos = 200_000
)

// Fee is a stored fee: the rule the payment path applies, with its
// currencies' ids.
type Fee struct {
	payment.Fee
	CurrencyFromID int32
	CurrencyToID   int32
	CreatedAt      time.Time
}

// Input is a fee as a caller writes it (docs/contracts-fees.md).
type Input struct {
	CollabID        int32
	TransactionType int32
	PayTypeID       int32
	CurrencyFromID  int32
	CurrencyToID    int32
	AmountMin       string
	AmountMax       string
	Priority        int32
	// Enabled is true when nil.
	Enabled *bool
	FeeType int32
	Value   string
	Payer   int32
}

// Filter selects fees; nil fields select all. CollabID 0 selects the global
// fees.
type Filter struct {
	CollabID        *int32
	TransactionType *int32
	PayTypeID       *int32
	CurrencyFromID  *int32
	CurrencyToID    *int32
	Enabled         *bool
}

// Query is a Filter within a scope, one page of it.
type Query struct {
	Filter
	// Scope limits the fees to those of its merchants' collabs and the
	// global ones, unless it is global.
	Scope  merchant.Scope
	Offset int
	Limit  int
}

// Page is one page of fees.
type Page struct {
	Fees       []Fee
	TotalCount int64
}

// Viewer is the caller of a fee call: its merchant scope, and whether it may
// change global fees (Admin: it meets access.ReqGlobalFees, admin-wide with
// Edit Fees; docs/access.md).
type Viewer struct {
	Scope merchant.Scope
	Admin bool
}

// CollabRef is a collab as a fee names it.
type CollabRef struct {
	ID           int32
	MerchantID   int32
	ProviderID   int32
	MerchantName string
	ProviderName string
}

// Currency is a currency a fee can name.
type Currency struct {
	ID   int32
	Code string
}

// PayType is a pay type a fee can name.
type PayType struct {
	ID   int32
	Name string
	Code string
}

// PayTypes returns every pay type, by id.
func (s *Service) PayTypes(ctx context.Context) ([]PayType, error) { return s.store.PayTypes(ctx) }

// payTypeIDs returns every pay type's id.
func (s *Service) payTypeIDs(ctx context.Context) ([]int32, error) {
	pts, err := s.store.PayTypes(ctx)
	ids := make([]int32, 0, len(pts))
	for _, p := range pts {
		ids = append(ids, p.ID)
	}
	return ids, err
}

// Journal is the store transaction a change is written in.
type Journal = activity.Journal

// Store keeps fees.
type Store interface {
	// Currencies returns every currency.
	Currencies(ctx context.Context) ([]Currency, error)
	// PayTypes returns every pay type, by id.
	PayTypes(ctx context.Context) ([]PayType, error)
	// Collab returns a collab (not found).
	Collab(ctx context.Context, id int32) (CollabRef, error)
	// CollabsOf returns the ids of the collabs of merchants.
	CollabsOf(ctx context.Context, merchantIDs []int32) ([]int32, error)
	// CollabPayTypes returns the pay type ids of a collab.
	CollabPayTypes(ctx context.Context, id int32) ([]int32, error)
	// List returns one page of the fees q selects, by id, and how many it
	// selects.
	List(ctx context.Context, q Query) (Page, error)
	// Get returns a fee (not found).
	Get(ctx context.Context, id int64) (Fee, error)
	// Candidates returns up to limit enabled fees other than excludeID that
	// may conflict with f (a superset of those payment.Conflicts accepts),
	// by id.
	Candidates(ctx context.Context, f payment.Fee, excludeID int64, limit int) ([]Fee, error)
	// ForCollab returns the enabled fees that may apply to a collab's
	// payments (its own and the global ones).
	ForCollab(ctx context.Context, collabID int32) ([]Fee, error)
	// Save writes f (a new fee when f.ID is 0) in one store transaction:
	// it serializes with other saves of fees of f's currencies, reads the
	// current version (nil for a new fee; not found for an unknown id) and
	// the candidates that may conflict with f, calls check with them, writes
	// f and calls then. Nothing is written when check or then fails.
	Save(ctx context.Context, f Fee, check func(old *Fee, candidates []Fee) error,
		then func(ctx context.Context, j Journal, old *Fee, stored Fee) error) (Fee, error)
	// Delete removes fee id in one store transaction after check accepted
	// it, and calls then (not found for an unknown id).
	Delete(ctx context.Context, id int64, check func(old Fee) error, then func(ctx context.Context, j Journal, old Fee) error) error
	// Preview computes the what-if of q.
	Preview(ctx context.Context, q PreviewQuery) ([]PreviewCurrency, error)
}

// Service serves fees.
type Service struct {
	store Store
	now   func() time.Time
}

// NewService returns the service on store, with now the clock.
func NewService(store Store, now func() time.Time) *Service {
	return &Service{store: store, now: now}
}

// List returns one page (1-based) of the fees v sees that f selects.
func (s *Service) List(ctx context.Context, v Viewer, f Filter, page, take int) (Page, error) {
	for _, p := range []struct {
		name string
		v    *int32
	}{{"collabId", f.CollabID}, {"payTypeId", f.PayTypeID}, {"currencyFromId", f.CurrencyFromID}, {"currencyToId", f.CurrencyToID}} {
		if p.v != nil && *p.v < 0 {
			return Page{}, apperr.Invalid("%s must be 0 or more.", p.name)
		}
	}
	if f.TransactionType != nil && (*f.TransactionType < 0 || *f.TransactionType > 2) {
		return Page{}, apperr.Invalid("transactionType must be 0 (both), 1 (deposit) or 2 (withdrawal).")
	}
	if f.CollabID != nil && *f.CollabID != 0 {
		if _, err := s.collabInScope(ctx, v, *f.CollabID); err != nil {
			return Page{}, err
		}
	}
	return s.store.List(ctx, Query{Filter: f, Scope: v.Scope, Offset: (page - 1) * take, Limit: take})
}

// collabInScope returns collab id when v may see it, else not found.
func (s *Service) collabInScope(ctx context.Context, v Viewer, id int32) (CollabRef, error) {
	c, err := s.store.Collab(ctx, id)
	if apperr.KindOf(err) == apperr.KindNotFound || err == nil && !v.Scope.Includes(c.MerchantID) {
		return CollabRef{}, apperr.NotFound("Collab %d was not found.", id)
	}
	return c, err
}

// visible reports not found unless v may see f: a global fee, or one of a
// collab of v's merchants.
func (s *Service) visible(ctx context.Context, v Viewer, f Fee) error {
	if f.CollabID == 0 || v.Scope.All {
		return nil
	}
	c, err := s.store.Collab(ctx, f.CollabID)
	if err != nil && apperr.KindOf(err) != apperr.KindNotFound {
		return err
	}
	if err != nil || !v.Scope.Includes(c.MerchantID) {
		return apperr.NotFound("Fee %d was not found.", f.ID)
	}
	return nil
}

// Get returns fee id when v may see it (not found otherwise).
func (s *Service) Get(ctx context.Context, v Viewer, id int64) (Fee, error) {
	f, err := s.store.Get(ctx, id)
	if apperr.KindOf(err) == apperr.KindNotFound {
		return Fee{}, apperr.NotFound("Fee %d was not found.", id)
	}
	if err != nil {
		return Fee{}, err
	}
	return f, s.visible(ctx, v, f)
}

// editable refuses a change of f by v: not found when v does not see it,
// forbidden for a global fee unless v is an admin.
func (s *Service) editable(ctx context.Context, v Viewer, f Fee) error {
	if err := s.visible(ctx, v, f); err != nil {
		return err
	}
	if f.CollabID == 0 && !v.Admin {
		return apperr.Forbidden("Only administrators may change global fees (fees without a collab).")
	}
	return nil
}

// parse validates in and returns the fee it describes (ID 0), its collab
// (zero for a global fee), naming the first bad field by its JSON name.
func (s *Service) parse(ctx context.Context, v Viewer, in Input) (Fee, CollabRef, error) {
	var f Fee
	switch {
	case in.CollabID < 0:
		return f, CollabRef{}, apperr.Invalid("collabId must be a collab's id, or 0 for every collab.")
	case in.TransactionType < 0 || in.TransactionType > 2:
		return f, CollabRef{}, apperr.Invalid("transactionType must be 0 (both), 1 (deposit) or 2 (withdrawal).")
	case in.PayTypeID < 0:
		return f, CollabRef{}, apperr.Invalid("payTypeId must be a pay type's id, or 0 for every pay type.")
	case in.CurrencyFromID <= 0:
		return f, CollabRef{}, apperr.Invalid("currencyFromId is required: the id of a currency.")
	case in.CurrencyToID <= 0:
		return f, CollabRef{}, apperr.Invalid("currencyToId is required: the id of a currency.")
	case in.Priority < 0 || in.Priority > MaxPriority:
		return f, CollabRef{}, apperr.Invalid("priority must be from 0 to %d.", MaxPriority)
	case in.FeeType < 0 || in.FeeType > 2:
		return f, CollabRef{}, apperr.Invalid("feeType must be 0 (None), 1 (Percent) or 2 (Fixed).")
	case in.Payer != 0 && in.Payer != 1 && in.Payer != 2:
		return f, CollabRef{}, apperr.Invalid("payer must be 1 (client fee) or 2 (merchant fee).")
	}
	var err error
	if f.AmountMin, err = bound("amountMin", in.AmountMin); err != nil {
		return f, CollabRef{}, err
	}
	if f.AmountMax, err = bound("amountMax", in.AmountMax); err != nil {
		return f, CollabRef{}, err
	}
	if f.AmountMin.IsSet() && f.AmountMax.IsSet() && f.AmountMin.CentsValue() > f.AmountMax.CentsValue() {
		return f, CollabRef{}, apperr.Invalid("amountMin must not be larger than amountMax.")
	}
	f.FeeType = payment.FeeType(in.FeeType)
	value := strings.TrimSpace(in.Value)
	switch {
	case value == "" && f.FeeType == payment.FeeNone:
		value = "0"
	case value == "":
		return f, CollabRef{}, apperr.Invalid("value is required: the percentage or the fixed amount of the fee.")
	}
	if f.Value, err = payment.ParseDecimal4(value); err != nil {
		return f, CollabRef{}, apperr.Invalid("value must be a number such as 1.5 (at most four decimal places, not negative), not %q.", in.Value)
	}
	if f.FeeType == payment.FeePercent && f.Value > 100*10000 {
		return f, CollabRef{}, apperr.Invalid("value must be at most 100 for a percentage fee.")
	}
	if f.FeeType == payment.FeeNone && f.Value != 0 {
		return f, CollabRef{}, apperr.Invalid("value must be 0 for a fee of type None.")
	}
	f.CollabID, f.Type, f.PayTypeID, f.Priority = in.CollabID, payment.Type(in.TransactionType), in.PayTypeID, in.Priority
	f.Payer = int16(in.Payer)
	if f.Payer == 0 {
		f.Payer = 2
	}
	f.Enabled = in.Enabled == nil || *in.Enabled

	currencies, err := s.store.Currencies(ctx)
	if err != nil {
		return f, CollabRef{}, err
	}
	code := func(id int32) string {
		for _, c := range currencies {
			if c.ID == id {
				return c.Code
			}
		}
		return ""
	}
	f.CurrencyFromID, f.CurrencyToID = in.CurrencyFromID, in.CurrencyToID
	if f.CurrencyFrom = code(in.CurrencyFromID); f.CurrencyFrom == "" {
		return f, CollabRef{}, apperr.Invalid("currencyFromId %d is not a known currency (GET /api/v1/currencies lists them).", in.CurrencyFromID)
	}
	if f.CurrencyTo = code(in.CurrencyToID); f.CurrencyTo == "" {
		return f, CollabRef{}, apperr.Invalid("currencyToId %d is not a known currency (GET /api/v1/currencies lists them).", in.CurrencyToID)
	}
	if in.PayTypeID != 0 {
		ids, err := s.payTypeIDs(ctx)
		if err != nil {
			return f, CollabRef{}, err
		}
		if !slices.Contains(ids, in.PayTypeID) {
			return f, CollabRef{}, apperr.Invalid("payTypeId %d is not a known pay type (GET /api/v1/pay-types lists them).", in.PayTypeID)
		}
	}
	var c CollabRef
	if in.CollabID != 0 {
		if c, err = s.collabInScope(ctx, v, in.CollabID); err != nil {
			return f, CollabRef{}, err
		}
	} else if !v.Admin {
		return f, CollabRef{}, apperr.Forbidden("Only administrators may change global fees (fees without a collab): choose a collab.")
	}
	return f, c, nil
}

// bound reads an optional non-negative amount.
func bound(field, s string) (money.Amount, error) {
	a, err := money.Parse(field, strings.TrimSpace(s))
	if err != nil {
		return a, err
	}
	if a.IsSet() && a.CentsValue() < 0 {
		return a, apperr.Invalid("%s must not be negative.", field)
	}
	return a, nil
}

// Conflict is an enabled fee a fee conflicts with and the winner of their
// overlap.
type Conflict struct {
	Fee Fee
	// WinnerID is the id of the fee that wins the overlap: Fee's, or the
	// checked fee's (0 when it is new).
	WinnerID int64
}

// conflictsOf returns the candidates f conflicts with (payment.Conflicts),
// each with the winner of the overlap (payment.Wins). A disabled f
// conflicts with nothing: only enabled fees apply.
func conflictsOf(f Fee, candidates []Fee) []Conflict {
	if !f.Enabled {
		return nil
	}
	var out []Conflict
	for _, c := range candidates {
		if !c.Enabled || c.ID == f.ID || !payment.Conflicts(f.Fee, c.Fee) {
			continue
		}
		w := c.ID
		if payment.Wins(f.Fee, c.Fee) {
			w = f.ID
		}
		out = append(out, Conflict{Fee: c, WinnerID: w})
		if len(out) == MaxConflicts {
			break
		}
	}
	return out
}

// conflictError is the 409 of a save that would conflict.
func conflictError(f Fee, cs []Conflict) error {
	ids := make([]string, 0, len(cs))
	for _, c := range cs {
		ids = append(ids, strconv.FormatInt(c.Fee.ID, 10))
	}
	what := "This fee"
	if f.ID != 0 {
		what = fmt.Sprintf("Fee %d", f.ID)
	}
	return apperr.Conflict("%s conflicts with enabled fee(s) %s: they share currencies, amounts and scope. Change it, disable it, or save anyway with allowConflict.",
		what, strings.Join(ids, ", "))
}

// Check answers the enabled fees that fee id (0 for a new one) would
// conflict with if saved as in.
func (s *Service) Check(ctx context.Context, v Viewer, id int64, in Input) ([]Conflict, error) {
	f, _, err := s.parseFor(ctx, v, id, in)
	if err != nil {
		return nil, err
	}
	candidates, err := s.store.Candidates(ctx, f.Fee, id, MaxConflicts*10)
	if err != nil {
		return nil, err
	}
	return conflictsOf(f, candidates), nil
}

// parseFor parses in as fee id (0 for a new fee) and checks that v may
// change the current version.
func (s *Service) parseFor(ctx context.Context, v Viewer, id int64, in Input) (Fee, CollabRef, error) {
	if id < 0 {
		return Fee{}, CollabRef{}, apperr.Invalid("id must be a fee's id, or 0 for a new fee.")
	}
	if id != 0 {
		old, err := s.Get(ctx, v, id)
		if err != nil {
			return Fee{}, CollabRef{}, err
		}
		if err := s.editable(ctx, v, old); err != nil {
			return Fee{}, CollabRef{}, err
		}
	}
	f, c, err := s.parse(ctx, v, in)
	f.ID = id
	return f, c, err
}

// Create adds a fee as actor. Refused (nothing written): invalid input,
// a collab outside the actor's scope (not found), a global fee by a
// non-admin (forbidden), a conflict with an enabled fee unless
// allowConflict (conflict).
func (s *Service) Create(ctx context.Context, actor activity.Actor, admin bool, in Input, allowConflict bool) (Fee, error) {
	return s.save(ctx, actor, admin, 0, in, allowConflict)
}

// Update replaces fee id's fields as actor; refused as Create, and not
// found for a fee the actor does not see.
func (s *Service) Update(ctx context.Context, actor activity.Actor, admin bool, id int64, in Input, allowConflict bool) (Fee, error) {
	if id <= 0 {
		return Fee{}, apperr.NotFound("Fee %d was not found.", id)
	}
	return s.save(ctx, actor, admin, id, in, allowConflict)
}

func (s *Service) save(ctx context.Context, actor activity.Actor, admin bool, id int64, in Input, allowConflict bool) (Fee, error) {
	v := Viewer{Scope: actor.Scope, Admin: admin}
	f, c, err := s.parseFor(ctx, v, id, in)
	if err != nil {
		return Fee{}, err
	}
	return s.store.Save(ctx, f, func(old *Fee, candidates []Fee) error {
		if old != nil {
			// Checked again in the transaction: the fee may have moved
			// since parseFor read it.
			if err := s.editable(ctx, v, *old); err != nil {
				return err
			}
		}
		if cs := conflictsOf(f, candidates); len(cs) > 0 && !allowConflict {
			return conflictError(f, cs)
		}
		return nil
	}, func(ctx context.Context, j Journal, old *Fee, stored Fee) error {
		e := activity.Entry{ActionType: activity.ActionConfiguration, CollabID: c.ID, MerchantID: c.MerchantID,
			MerchantName: c.MerchantName, ProviderID: c.ProviderID, ProviderName: c.ProviderName,
			PayTypeID: stored.PayTypeID, NewValue: activity.Value(Values(stored)), Count: 1}
		if old == nil {
			e.Message = fmt.Sprintf("Fee %d created: %s.", stored.ID, Describe(stored))
		} else {
			e.OldValue = activity.Value(Values(*old))
			e.Message = fmt.Sprintf("Fee %d updated: %s.", stored.ID, Describe(stored))
		}
		return activity.Record(ctx, j, actor, e, s.now().UTC().Truncate(time.Microsecond))
	})
}

// Delete removes fee id as actor (not found when the actor does not see
// it; forbidden for a global fee unless admin).
func (s *Service) Delete(ctx context.Context, actor activity.Actor, admin bool, id int64) error {
	v := Viewer{Scope: actor.Scope, Admin: admin}
	if _, err := s.Get(ctx, v, id); err != nil {
		return err
	}
	var c CollabRef
	return s.store.Delete(ctx, id, func(old Fee) error {
		if err := s.editable(ctx, v, old); err != nil {
			return err
		}
		if old.CollabID != 0 {
			var err error
			c, err = s.store.Collab(ctx, old.CollabID)
			return err
		}
		return nil
	}, func(ctx context.Context, j Journal, old Fee) error {
		return activity.Record(ctx, j, actor, activity.Entry{ActionType: activity.ActionConfiguration,
			CollabID: c.ID, MerchantID: c.MerchantID, MerchantName: c.MerchantName, ProviderID: c.ProviderID,
			ProviderName: c.ProviderName, PayTypeID: old.PayTypeID, OldValue: activity.Value(Values(old)), Count: 1,
			Message: fmt.Sprintf("Fee %d deleted: %s.", old.ID, Describe(old))}, s.now().UTC().Truncate(time.Microsecond))
	})
}

// Values is f as the activity log's old and new values show it: the JSON
// fields of docs/contracts-fees.md.
func Values(f Fee) map[string]any {
	return map[string]any{"id": f.ID, "collabId": f.CollabID, "transactionType": int(f.Type), "payTypeId": f.PayTypeID,
		"currencyFromId": f.CurrencyFromID, "currencyToId": f.CurrencyToID, "amountMin": f.AmountMin.String(),
		"amountMax": f.AmountMax.String(), "priority": f.Priority, "enabled": f.Enabled, "feeType": int(f.FeeType),
		"value": f.Value.String(), "payer": f.Payer}
}

// Describe says in words what f charges.
func Describe(f Fee) string {
	var what string
	switch f.FeeType {
	case payment.FeePercent:
		what = f.Value.String() + "%"
	case payment.FeeFixed:
		what = f.Value.String() + " " + f.CurrencyFrom
	default:
		what = "no fee"
	}
	state := "enabled"
	if !f.Enabled {
		state = "disabled"
	}
	return fmt.Sprintf("%s on %s→%s, %s", what, f.CurrencyFrom, f.CurrencyTo, state)
}
