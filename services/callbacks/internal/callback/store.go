package callback

import (
	"context"
	"net/url"
	"time"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
)

// Store keeps callback URLs, the transaction projection, deliveries,
// attempts and signing secrets. Every method that changes a transaction's
// deliveries also writes the CallbackDeliveryChanged event of the tally
// change in the same database transaction.
type Store interface {
	DeliveryStore
	SecretStore

	// CollabURLs returns a collab's callback URLs, oldest first.
	CollabURLs(ctx context.Context, collabID int32) ([]URL, error)
	// MerchantURLs returns a merchant's callback URLs, oldest first.
	MerchantURLs(ctx context.Context, merchantID int32) ([]URL, error)
	// URL returns a callback URL (not found).
	URL(ctx context.Context, id int64) (URL, error)
	// NextURLID reserves the id of a callback URL about to be created (one
	// whose secret headers are sealed bound to it).
	NextURLID(ctx context.Context) (int64, error)
	// CreateURL inserts u (its ID, when 0, and times are set by the store) with the
	// event change makes of the stored URL, and returns it.
	CreateURL(ctx context.Context, u URL, change func(saved URL) *eventsv1.CallbackUrlChanged) (URL, error)
	// UpdateURL replaces the stored fields of u.ID with u's, with the event
	// change makes of the URL before and after, and returns it (not found).
	UpdateURL(ctx context.Context, u URL, change func(before, after URL) *eventsv1.CallbackUrlChanged) (URL, error)
	// DeleteURL deletes a callback URL and cancels its pending deliveries,
	// with the event change makes of the URL deleted (not found).
	DeleteURL(ctx context.Context, id int64, at time.Time, change func(before URL) *eventsv1.CallbackUrlChanged) error

	// Transaction returns a transaction of the projection (not found).
	Transaction(ctx context.Context, id int64) (Transaction, error)
	// ApplyTransactionEvents applies events in order, in one database
	// transaction: each updates the projection (a newer state replaces an
	// older one; a cancel is kept), a cancel cancels the transaction's
	// pending deliveries, and an event ShouldDeliver approves calls for one
	// delivery per enabled matching URL of the collab that existed when the
	// transaction reached the event's state (a minute of grace), unique per
	// event and URL. Those deliveries are returned fresh, not stored (see
	// RecordResults), less those already stored for their event and URL.
	ApplyTransactionEvents(ctx context.Context, events []TransactionEvent, at time.Time) ([]Delivery, error)
	// Enqueue makes one delivery of a transaction's current state per
	// enabled matching URL of its collab, under eventID, after check
	// approved the transaction locked against concurrent changes (not
	// found for an unknown transaction; check's error otherwise).
	Enqueue(ctx context.Context, transactionID int64, eventID string, at time.Time, check func(Transaction) error) (int, error)

	// Attempts returns one page (1-based) of a transaction's attempts,
	// newest first, and the count of all of them.
	Attempts(ctx context.Context, transactionID int64, page, take int32) ([]Attempt, int64, error)
	// Attempt returns an attempt (not found).
	Attempt(ctx context.Context, id int64) (Attempt, error)
	// AttemptsOfTransactions returns every attempt of the transactions ids
	// names, by transaction id, then oldest first.
	AttemptsOfTransactions(ctx context.Context, ids []int64) ([]Attempt, error)
	// RetryAttempt queues one more attempt of a failed attempt's delivery,
	// even past its max attempts, and marks the attempt Retried, after
	// check approved the attempt and its transaction locked (not found;
	// check's error otherwise). It returns the attempt after the change.
	RetryAttempt(ctx context.Context, id int64, at time.Time, check func(RetryTarget) error) (Attempt, error)
}

// RetryTarget is what a retry is decided on: the attempt, its transaction,
// its delivery's status and whether its callback URL still exists and is enabled.
type RetryTarget struct {
	Attempt     Attempt
	Transaction Transaction
	Delivery    DeliveryStatus
	URLActive   bool
}

// DeliveryStore is what a Dispatcher needs.
type DeliveryStore interface {
	// ClaimDue leases up to limit pending deliveries due at now until
	// leaseUntil (they are due again then, should their results never be
	// recorded), skipping those another claimer holds.
	ClaimDue(ctx context.Context, now time.Time, limit int, leaseUntil time.Time) ([]Delivery, error)
	// RecordResults stores the attempts of results and applies each to its
	// delivery when the delivery is still under the result's lease, all in
	// one database transaction with the tally events. A fresh delivery's
	// result (Delivery.ID 0) stores the delivery as the result leaves it,
	// with its first attempt (none when Attempt is ""), unless one is stored
	// for its event and URL already; one left pending for a transaction
	// whose callbacks were cancelled meanwhile is stored cancelled.
	RecordResults(ctx context.Context, results []Result, at time.Time) error
	// BlockedURLs returns the callback URLs whose breakers hold deliveries
	// back (open, half-open or disabled), with when an open one may probe.
	BlockedURLs(ctx context.Context) (map[int64]time.Time, error)
}

// SecretStore keeps merchants' sealed signing keys.
type SecretStore interface {
	// SealedKeys returns the sealed keys of the merchants that have one.
	SealedKeys(ctx context.Context, merchantIDs []int32) (map[int32][]byte, error)
	// AddSealedKey stores sealed for a merchant that has no key yet and
	// returns the merchant's stored key (its own when another was first).
	AddSealedKey(ctx context.Context, merchantID int32, sealed []byte, at time.Time) ([]byte, error)
	// ReplaceSealedKey stores sealed as a merchant's key; the key it
	// replaces still signs until keepUntil (none when not after at).
	ReplaceSealedKey(ctx context.Context, merchantID int32, sealed []byte, at, keepUntil time.Time) error
	// SigningSealedKeys returns, of the merchants that have a key, the
	// sealed current keys and the sealed keys that rotations replaced and
	// that still sign at now, in one read.
	SigningSealedKeys(ctx context.Context, merchantIDs []int32, now time.Time) (current, previous map[int32][]byte, err error)
}

// Collabs resolves collabs through the gateway, within the caller's scope
// (the caller's credentials travel in ctx).
type Collabs interface {
	// MerchantOf returns the merchant of a collab the caller may see (not
	// found otherwise).
	MerchantOf(ctx context.Context, collabID int32) (int32, error)
}

// Merchants tells whether a merchant exists; the gateway owns them (the
// caller's credentials travel in ctx).
type Merchants interface {
	// Exists reports whether merchantID is a merchant the caller may see.
	// Errors: unauthenticated, internal.
	Exists(ctx context.Context, merchantID int32) (bool, error)
}

// URLChecker validates user-supplied URLs (netguard.Policy).
type URLChecker interface {
	// CheckURL returns the parsed URL or an invalid error saying what is
	// wrong with it.
	CheckURL(ctx context.Context, raw string) (*url.URL, error)
}

// Sealer seals signing keys at rest.
type Sealer interface {
	// Seal encrypts plain bound to aad.
	Seal(plain []byte, aad string) ([]byte, error)
	// Open decrypts a value sealed with the same aad.
	Open(sealed []byte, aad string) ([]byte, error)
}

// Result is the outcome of one attempt of a claimed delivery.
type Result struct {
	// Delivery is the delivery as claimed.
	Delivery Delivery
	// At is when the attempt was made.
	At time.Time
	// ResponseCode is the receiver's HTTP status, 0 when there was none.
	ResponseCode int32
	// ErrorMessage says why it failed, "" for a success.
	ErrorMessage string
	// Attempt is the attempt's status; Status and NextAttemptAt the
	// delivery's after it.
	// Attempt is "" for a delivery stored without an attempt (a fresh one
	// that found no request slot, or one whose URL had its share in
	// flight).
	Attempt       AttemptStatus
	Status        DeliveryStatus
	NextAttemptAt time.Time
	// Duration is how long the attempt took (sending to the end of the
	// answer or the failure).
	Duration time.Duration

	// done, for a fresh delivery's result, is told how recording it ended.
	done func(error)
}

// Number is the attempt's number within its delivery.
func (r Result) Number() int32 { return r.Delivery.AttemptsMade + 1 }

// AttemptsMade is the delivery's attempts after r: Number, or the attempts
// made before when r made none.
func (r Result) AttemptsMade() int32 {
	if r.Attempt == "" {
		return r.Delivery.AttemptsMade
	}
	return r.Number()
}
