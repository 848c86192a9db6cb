// Package fraud holds the gateway's fraud review (docs/contracts-frauds.md):
// the frauds the detection job flags, each with the transactions behind it;
// the list the Fraud Management page reads; the review an operator records
// (status, notes, and optionally stopping the transactions' callbacks, in
// one store transaction with its activity log entry); and the detection
// rules with their thresholds.
//
// A fraud belongs to one merchant: every rule counts within a merchant, so a
// merchant user sees exactly the frauds of its merchants.
package fraud

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/datefilter"
)

// ReviewStatus is a fraud's review status (spec 02 §4).
type ReviewStatus int16

// The review statuses.
const (
	NotReviewed ReviewStatus = 0
	Confirmed   ReviewStatus = 1
	Denied      ReviewStatus = 2
)

// Known reports one of the three statuses.
func (s ReviewStatus) Known() bool { return s >= NotReviewed && s <= Denied }

// String is the status's name as the console shows it.
func (s ReviewStatus) String() string {
	switch s {
	case NotReviewed:
		return "Not Reviewed"
	case Confirmed:
		return "Confirmed"
	case Denied:
		return "Denied"
	}
	return fmt.Sprintf("status %d", int(s))
}

// Rule names a detection rule.
type Rule string

// The rules (docs/contracts-frauds.md, "Rules").
const (
	RuleVelocity            Rule = "velocity"
	RuleAmountSpike         Rule = "amount-spike"
	RuleFailuresThenSuccess Rule = "failures-then-success"
	RuleSharedIdentity      Rule = "shared-identity"
)

// Transaction is one transaction of a fraud, as the list shows it.
type Transaction struct {
	ID                int64
	ReferenceID       string
	Amount            string
	Currency          string
	Type              int32
	Status            int32
	CreatedAt         time.Time
	ProviderName      string
	MerchantName      string
	MerchantID        int32
	CallbacksSent     int32
	CallbacksTotal    int32
	CallbacksCanceled bool
}

// Fraud is one flag the detection job raised.
type Fraud struct {
	ID                int64
	ReferenceID       string
	Rule              Rule
	MerchantID        int32
	ClientID          string
	MerchantClientID  string
	Level             int32
	Reason            string
	TransactionCount  int32
	DetectedAt        time.Time
	UpdatedAt         time.Time
	ReviewStatus      ReviewStatus
	ReviewCompletedAt *time.Time
	ReviewedBy        string
	Notes             string
	CallbacksCanceled bool
	// Transactions are the first MaxListedTransactions of its transactions,
	// oldest first.
	Transactions []Transaction
}

// List bounds.
const (
	// DefaultTake is the page size when none is asked (spec 02 §9).
	DefaultTake = 10
	// MaxTake is the largest page.
	MaxTake = 100
	// CountLimit bounds the count of a list: beyond it the total reads
	// CountLimit (docs/contracts-frauds.md).
	CountLimit = 10_000
	// MaxListedTransactions is how many transactions a listed fraud carries.
	MaxListedTransactions = 50
	// MaxNotes is the longest note, in characters.
	MaxNotes = 2000
	// MaxClientIDFilter bounds the clientId filter, in characters: a
	// fraud's clientId may be a user agent, longer than an id (the other
	// text filters are bounded like the transaction list's).
	MaxClientIDFilter = 1000
)

// Filter selects frauds (spec 02 §3 Fraud filters). Zero values mean any.
type Filter struct {
	Status           *ReviewStatus
	ClientID         string
	MerchantID       int32
	MerchantClientID string
	TransactionID    int64
	ReferenceID      string
	From, To         time.Time
}

// Query is a Filter within a caller's scope, with its page.
type Query struct {
	Filter
	Scope  merchant.Scope
	Offset int
	Limit  int
}

// Page is one page of frauds and how many there are (at most CountLimit).
type Page struct {
	Frauds     []Fraud
	TotalCount int64
}

// Review is a reviewer's decision about one fraud.
type Review struct {
	ID     int64
	Status ReviewStatus
	Notes  string
	// CancelCallbacks stops the callbacks of the fraud's transactions.
	CancelCallbacks bool
}

// Reviewed is what a review changed, for the activity log.
type Reviewed struct {
	Before, After Fraud
	// CanceledTransactions are the ids of the transactions whose callbacks
	// the review stopped (those not stopped before).
	CanceledTransactions []int64
}

// Journal is the store transaction a review is saved in.
type Journal = activity.Journal

// Store keeps frauds.
type Store interface {
	// List returns one page of the frauds q selects, newest detected first,
	// and their count up to CountLimit.
	List(ctx context.Context, q Query) (Page, error)
	// Review saves r by actor at at when the fraud is in scope, calling then
	// in the same store transaction; check sees the fraud as it was (locked)
	// and may refuse the review, in which case nothing is written. Not found
	// for an unknown fraud or one outside scope.
	Review(ctx context.Context, r Review, actor activity.Actor, at time.Time, scope merchant.Scope,
		check func(before Fraud) error, then func(ctx context.Context, j Journal, rv Reviewed) error) (Fraud, error)
}

// Service lists and reviews frauds.
type Service struct {
	store Store
	now   func() time.Time
}

// NewService returns the service on store, with now the clock.
func NewService(store Store, now func() time.Time) *Service {
	return &Service{store: store, now: now}
}

// ListRequest is a list call's filter as the caller wrote it.
type ListRequest struct {
	Page, Take       int32
	Status           *int32
	ClientID         string
	MerchantID       *int32
	MerchantClientID string
	TransactionID    *int64
	ReferenceID      string
	StartDate        string
	EndDate          string
}

// List returns the page of frauds req asks for within scope. Invalid (400,
// naming the field) for a status that is not 0, 1 or 2, a date that does not
// parse, a start after the end, or a negative id; a merchant outside scope
// selects nothing.
func (s *Service) List(ctx context.Context, scope merchant.Scope, req ListRequest) (Page, error) {
	q := Query{Scope: scope, Offset: int(req.Page-1) * int(req.Take), Limit: int(req.Take)}
	if req.Status != nil {
		st := ReviewStatus(*req.Status)
		if !st.Known() {
			return Page{}, apperr.Invalid("status must be 0 (Not Reviewed), 1 (Confirmed) or 2 (Denied).")
		}
		q.Status = &st
	}
	if req.MerchantID != nil {
		if *req.MerchantID < 1 {
			return Page{}, apperr.Invalid("merchantId must be a positive number.")
		}
		if !scope.Includes(*req.MerchantID) {
			return Page{Frauds: []Fraud{}}, nil
		}
		q.MerchantID = *req.MerchantID
	}
	if req.TransactionID != nil {
		if *req.TransactionID < 1 {
			return Page{}, apperr.Invalid("transactionId must be a positive number.")
		}
		q.TransactionID = *req.TransactionID
	}
	if tooLong, _ := payment.LongFilters(payment.TextFilter{Name: "clientId", Text: req.ClientID, Max: MaxClientIDFilter},
		payment.TextFilter{Name: "merchantClientId", Text: req.MerchantClientID, Max: payment.MaxClientIDLen},
		payment.TextFilter{Name: "referenceId", Text: req.ReferenceID}, payment.TextFilter{Name: "startDate", Text: req.StartDate},
		payment.TextFilter{Name: "endDate", Text: req.EndDate}); len(tooLong) > 0 {
		return Page{}, apperr.Invalid("%s.", strings.Join(tooLong, "; "))
	}
	q.ClientID, q.MerchantClientID, q.ReferenceID = strings.TrimSpace(req.ClientID),
		strings.TrimSpace(req.MerchantClientID), strings.TrimSpace(req.ReferenceID)
	var err error
	if q.From, err = parseDate(req.StartDate, "startDate"); err != nil {
		return Page{}, err
	}
	if q.To, err = parseDate(req.EndDate, "endDate"); err != nil {
		return Page{}, err
	}
	if !q.From.IsZero() && !q.To.IsZero() && q.From.After(q.To) {
		return Page{}, apperr.Invalid("startDate must not be after endDate.")
	}
	if q.Offset >= CountLimit {
		return Page{Frauds: []Fraud{}, TotalCount: 0}, apperr.Invalid("page is too far: at most the first %d frauds are listed; narrow the filters.", CountLimit)
	}
	return s.store.List(ctx, q)
}

func parseDate(s, field string) (time.Time, error) {
	if strings.TrimSpace(s) == "" {
		return time.Time{}, nil
	}
	t, err := payment.ParseTime(strings.TrimSpace(s), time.UTC)
	if errors.Is(err, payment.ErrDateOutOfRange) {
		return time.Time{}, apperr.Invalid("%s.", datefilter.Problem(field))
	}
	if err != nil {
		return time.Time{}, apperr.Invalid("%s must be a UTC ISO date-time, e.g. \"2025-01-31T23:59:59.999Z\".", field)
	}
	return t.UTC(), nil
}

// UpdateStatus records actor's review of a fraud (spec 02 §4 Fraud
// reviewStatus): any of the three statuses; Denied needs a note; a review
// that changes neither the status nor the notes, and does not stop
// callbacks, is refused. All are invalid (400) and write nothing; a fraud
// outside the actor's scope is not found.
func (s *Service) UpdateStatus(ctx context.Context, actor activity.Actor, r Review) (Fraud, error) {
	if !r.Status.Known() {
		return Fraud{}, apperr.Invalid("status must be 0 (Not Reviewed), 1 (Confirmed) or 2 (Denied).")
	}
	r.Notes = strings.TrimSpace(r.Notes)
	if utf8.RuneCountInString(r.Notes) > MaxNotes {
		return Fraud{}, apperr.Invalid("notes must be at most %d characters.", MaxNotes)
	}
	if r.Status == Denied && r.Notes == "" {
		return Fraud{}, apperr.Invalid("notes are required to deny a fraud: say why it is not one.")
	}
	check := func(before Fraud) error {
		if before.ReviewStatus == r.Status && before.Notes == r.Notes && (!r.CancelCallbacks || before.CallbacksCanceled) {
			return apperr.Invalid("Nothing to save: change the status or the notes.")
		}
		return nil
	}
	return s.store.Review(ctx, r, actor, s.now().UTC(), actor.Scope, check, func(ctx context.Context, j Journal, rv Reviewed) error {
		msg := fmt.Sprintf("Fraud %s (%s) reviewed: %s.", rv.After.ReferenceID, rv.After.ClientID, rv.After.ReviewStatus)
		if rv.Before.ReviewStatus != rv.After.ReviewStatus {
			msg = fmt.Sprintf("Fraud %s (%s) reviewed: %s, was %s.", rv.After.ReferenceID, rv.After.ClientID,
				rv.After.ReviewStatus, rv.Before.ReviewStatus)
		}
		if len(rv.CanceledTransactions) > 0 {
			msg += fmt.Sprintf(" Callback sending cancelled for %d transactions.", len(rv.CanceledTransactions))
		}
		count := int32(0)
		if rv.Before.ReviewStatus != rv.After.ReviewStatus {
			count++
		}
		if rv.Before.Notes != rv.After.Notes {
			count++
		}
		if rv.Before.CallbacksCanceled != rv.After.CallbacksCanceled {
			count++
		}
		return activity.Record(ctx, j, actor, activity.Entry{
			ActionType: activity.ActionStatus,
			MerchantID: rv.After.MerchantID,
			Message:    msg,
			OldValue:   activity.Value(reviewValue(rv.Before, nil)),
			NewValue:   activity.Value(reviewValue(rv.After, rv.CanceledTransactions)),
			Reason:     rv.After.Notes,
			Count:      count,
		}, rv.After.UpdatedAt)
	})
}

func reviewValue(f Fraud, canceled []int64) map[string]any {
	v := map[string]any{"fraudId": f.ID, "referenceId": f.ReferenceID, "reviewStatus": int(f.ReviewStatus),
		"notes": f.Notes, "isCallbacksSendingCanceled": f.CallbacksCanceled}
	if len(canceled) > 0 {
		v["callbacksCanceledTransactionIds"] = canceled
	}
	return v
}
