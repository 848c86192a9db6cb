// Package callback is the callbacks service's domain: merchants' callback
// URLs, the deliveries of final transactions' outcomes to them, each
// delivery's attempts, and the signing secrets receivers verify them with
// (docs/contracts-callbacks.md).
//
// A final transaction (learned from the gateway's TransactionFinalized
// events, kept in a projection) makes one delivery per enabled callback URL
// of its collab that matches its type. A Dispatcher posts due deliveries,
// signed in the Standard Webhooks form, and records every attempt; a failed
// attempt is retried with exponential backoff and full jitter until the
// URL's max attempts. Every change of a transaction's tally (delivered,
// total, failed) is announced with a CallbackDeliveryChanged event written
// in the same Postgres transaction.
package callback

import (
	"reflect"
	"slices"
	"time"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
)

// Transaction types of callback URLs and transactions.
const (
	// TypeAll is a callback URL's "every type" (stored as null).
	TypeAll int32 = 0
	// TypeCashIn is a deposit.
	TypeCashIn int32 = 1
	// TypeCashOut is a withdrawal.
	TypeCashOut int32 = 2
)

// Limits and defaults of callback URLs (spec 02 §5).
const (
	// MinAttempts and MaxAttempts bound a URL's attempts per delivery.
	MinAttempts = 1
	MaxAttempts = 12
	// DefaultAttempts is a new URL's attempts per delivery.
	DefaultAttempts = 3
)

// URL is a callback URL: where a collab's final transactions are posted.
type URL struct {
	// ID of the callback URL.
	ID int64
	// CollabID is the collab whose transactions it receives.
	CollabID int32
	// MerchantID is the collab's merchant (resolved from the gateway).
	MerchantID int32
	// URL is where outcomes are posted (http or https).
	URL string
	// Enabled says whether deliveries are made to it.
	Enabled bool
	// MaxAttempts is the attempts per delivery, 1 to 12.
	MaxAttempts int32
	// AddSignature says whether deliveries carry a signature.
	AddSignature bool
	// TransactionType is TypeCashIn, TypeCashOut or TypeAll.
	TransactionType int32
	// CreatedAt and UpdatedAt are when it was made and last changed.
	CreatedAt, UpdatedAt time.Time
	// FinalStatuses are the final statuses it receives (zero: every one).
	FinalStatuses StatusSet
	// DisabledReason and DisabledAt are set while the URL is disabled
	// automatically (its breaker saw only failures for too long).
	DisabledReason string
	DisabledAt     time.Time
	// Headers are the custom headers its deliveries carry, in order.
	Headers []Header
}

// same reports whether u and o are the same as stored.
func (u URL) same(o URL) bool {
	uh, oh := u.Headers, o.Headers
	u.Headers, o.Headers = nil, nil
	return reflect.DeepEqual(u, o) && headersEqual(uh, oh)
}

// Matches reports whether the URL receives transactions of type t in
// status status.
func (u URL) Matches(t, status int32) bool {
	return (u.TransactionType == TypeAll || u.TransactionType == t) && u.FinalStatuses.Has(status)
}

// finalStatuses are the final statuses, in the order of StatusSet's bits.
var finalStatuses = [...]int32{4, -1, -2, -3, -4, -5, -6}

// StatusSet is a set of final statuses; the empty set stands for every one.
type StatusSet uint8

// NewStatusSet returns the set of statuses, false when one is not final.
func NewStatusSet(statuses []int32) (StatusSet, int32, bool) {
	var s StatusSet
	for _, st := range statuses {
		i := slices.Index(finalStatuses[:], st)
		if i < 0 {
			return 0, st, false
		}
		s |= 1 << i
	}
	if s == 1<<len(finalStatuses)-1 {
		s = 0 // every one
	}
	return s, 0, true
}

// Has reports whether the set lets status through.
func (s StatusSet) Has(status int32) bool {
	if s == 0 {
		return true
	}
	i := slices.Index(finalStatuses[:], status)
	return i >= 0 && s&(1<<i) != 0
}

// List returns the statuses, ascending; none for every one.
func (s StatusSet) List() []int32 {
	var out []int32
	for i, st := range finalStatuses {
		if s&(1<<i) != 0 {
			out = append(out, st)
		}
	}
	slices.Sort(out)
	return out
}

// DeliveryStatus is where a delivery stands.
type DeliveryStatus string

// The delivery statuses.
const (
	// DeliveryPending is due now or later (attempts left).
	DeliveryPending DeliveryStatus = "pending"
	// DeliveryDelivered reached its URL (a 2xx answer).
	DeliveryDelivered DeliveryStatus = "delivered"
	// DeliveryFailed ran out of attempts.
	DeliveryFailed DeliveryStatus = "failed"
	// DeliveryCancelled will not be sent: the transaction's callbacks were
	// cancelled or its callback URL deleted.
	DeliveryCancelled DeliveryStatus = "cancelled"
)

// AttemptStatus is the outcome of one attempt, as the console shows it.
type AttemptStatus string

// The attempt statuses (spec 02 §3; "Failed" is retryable).
const (
	// AttemptSuccess reached the URL.
	AttemptSuccess AttemptStatus = "Success"
	// AttemptFailed did not, and no later attempt is queued.
	AttemptFailed AttemptStatus = "Failed"
	// AttemptRetried did not, and a later attempt was queued.
	AttemptRetried AttemptStatus = "Retried"
)

// Delivery is one transaction outcome to be posted to one URL, with the
// same webhook id and body on every attempt.
type Delivery struct {
	// ID of the delivery; 0 for a fresh one, made from an event and not
	// stored until its first attempt's result is.
	ID int64
	// EventID is the event (or enqueue) that made it, and CallbackURLID the
	// callback URL it is for: a delivery is unique by the two.
	EventID       string
	CallbackURLID int64
	// WebhookID is the webhook-id header, the same for every attempt.
	WebhookID string
	// TransactionID and MerchantID are the transaction's.
	TransactionID int64
	MerchantID    int32
	// URL is where it is posted.
	URL string
	// Body is the JSON body.
	Body []byte
	// Sign says whether it is signed.
	Sign bool
	// AttemptsMade before this claim; MaxAttempts allowed.
	AttemptsMade, MaxAttempts int32
	// Lease identifies the claim; a result is applied only under the lease
	// it was claimed with.
	Lease string
	// Headers are the custom headers of its callback URL when it was made
	// (fresh) or claimed, secret values sealed.
	Headers []Header
	// Trace is the span context of the request whose event (or enqueue)
	// made the delivery, invalid when there was none. It is stored with the
	// delivery's body, so that every attempt, the first or a retry claimed
	// later by any replica, is traced as its child.
	Trace trace.SpanContext
}

// Attempt is one recorded attempt of a delivery.
type Attempt struct {
	// ID of the attempt.
	ID int64
	// CreatedAt is when it was made.
	CreatedAt time.Time
	// URL posted to.
	URL string
	// RequestBody is the JSON body sent.
	RequestBody string
	// ResponseCode is the receiver's HTTP status, 0 when there was no answer.
	ResponseCode int32
	// Status is Success, Failed or Retried.
	Status AttemptStatus
	// WebhookID is its delivery's webhook id.
	WebhookID string
	// Number is which attempt of its delivery it was, from 1.
	Number int32
	// ErrorMessage says why it failed, when it did.
	ErrorMessage string
	// TransactionID and MerchantID are the transaction's.
	TransactionID int64
	MerchantID    int32
}

// Transaction is the service's projection of a gateway transaction.
type Transaction struct {
	// ID, MerchantID, CollabID, Type and Status as the gateway last told.
	ID         int64
	MerchantID int32
	CollabID   int32
	Type       int32
	Status     int32
	// CallbacksCanceled is set once an operator cancelled its callbacks.
	CallbacksCanceled bool
	// Data is the body's data for the transaction's current state.
	Data Data
}

// Tally is the count of one transaction's deliveries.
type Tally struct {
	TransactionID int64
	MerchantID    int32
	// Delivered reached their URL; Failed ran out of attempts; Total counts
	// every delivery that was not cancelled.
	Delivered, Total, Failed int32
	// Version grows with every change of the tally.
	Version int64
	// At is when it changed.
	At time.Time
}

// Final reports whether a transaction status is final (spec 02 §4): Success
// or one of the error statuses -1 to -6. Only final transactions are
// delivered.
func Final(status int32) bool {
	return status == 4 || (status <= -1 && status >= -6)
}

// Scope is the set of merchants a caller may see.
type Scope struct {
	// All is true for global roles (Admin, Support).
	All bool
	// MerchantIDs are the caller's own merchants when All is false.
	MerchantIDs []int32
}

// Includes reports whether the scope allows merchant id.
func (s Scope) Includes(id int32) bool {
	return s.All || slices.Contains(s.MerchantIDs, id)
}

// Actor is the signed-in caller of a change: who, from where, within which
// scope.
type Actor struct {
	UserID    int64
	Username  string
	IP        string
	UserAgent string
	Scope     Scope
}

// Event returns the CallbackDeliveryChanged event announcing t.
func (t Tally) Event() *eventsv1.CallbackDeliveryChanged {
	return &eventsv1.CallbackDeliveryChanged{
		TransactionId: t.TransactionID, MerchantId: t.MerchantID,
		Delivered: t.Delivered, Total: t.Total, Failed: t.Failed,
		Version: t.Version, ChangedAt: timestamppb.New(t.At),
	}
}
