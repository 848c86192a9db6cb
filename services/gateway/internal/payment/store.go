package payment

import (
	"context"
	"errors"
	"strconv"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/money"
)

// Connection is how the gateway reaches a provider.
type Connection struct {
	ProviderID      int32
	ProviderName    string
	PathSegment     string
	SupportsPolling bool
	// BaseURL is the provider API's root, e.g. http://127.0.0.1:8085/govip.
	BaseURL string
	// WebhookSecretSealed is the webhook secret sealed with aesgcm (owner
	// "provider:<id>").
	WebhookSecretSealed []byte
	// Credentials are the provider credentials of the transaction's collab
	// (docs/contracts-credentials.md), set just before a call to the
	// provider; the client sends them with the call and never records them.
	Credentials map[string]any
}

// StatusChange is a compare-and-set status change with what it writes.
type StatusChange struct {
	// ID of the transaction; From is the status the change was decided on.
	ID   int64
	From Status
	To   Status
	// Message is the new status message; ErrorMessage is set for failures.
	Message, ErrorMessage string
	// ProviderTID, when not empty, records the provider's id.
	ProviderTID string
	// ProviderData, when not nil, replaces the provider's reported data.
	ProviderData map[string]any
	// NextPollAt schedules polling; nil stops it.
	NextPollAt *time.Time
	// CancelCallbacks also stops the transaction's callbacks.
	CancelCallbacks bool
	// At is the time of the change.
	At time.Time
	// Logs are journal entries written with the change.
	Logs []LogEntry
	// Events makes the events of the change from the transaction after it.
	Events func(after Transaction) []proto.Message
	// Seen, when set, is the transaction as the change was decided on. The
	// store may then write the change without reading the row back: it
	// applies it only while the row still holds Seen's status, error
	// message, provider id, callbacks flag and version, and derives the
	// transaction after it from Seen (its version one more when the status
	// changes). The counters Seen carries (polls, callback tally)
	// may be older than the row's.
	Seen *Transaction
}

// ErrStaleView is returned by Store.Create when the transaction was decided
// on a view of the configuration (Views) older than the database's; nothing
// was written, and deciding again on a fresh view may give another answer.
var ErrStaleView = errors.New("the configuration changed since the view the payment was decided on")

// Views is implemented by a Store whose configuration reads (merchants,
// collabs, connections, fees, maintenance, validation endpoints) are served
// from memory. The payment path decides each payment on one view and creates
// it only while that view is current.
type Views interface {
	// View returns ctx under which the configuration reads are of one
	// version or newer; fresh reads the database's version first.
	View(ctx context.Context, fresh bool) (context.Context, error)
	// Current reports whether ctx's view is still of the database's
	// configuration (a refusal made on it stands).
	Current(ctx context.Context) (bool, error)
}

// Store keeps transactions and what the payment path reads.
type Store interface {
	// MerchantByHash returns the merchant with that public hash (not found).
	MerchantByHash(ctx context.Context, hash string) (merchant.Merchant, error)
	// MerchantCollab returns a merchant's collab with a provider (not
	// found).
	MerchantCollab(ctx context.Context, merchantID, providerID int32) (Collab, error)
	// Connection returns how to reach a provider (not found when none is
	// configured).
	Connection(ctx context.Context, providerID int32) (Connection, error)
	// ConnectionBySegment is Connection by path segment.
	ConnectionBySegment(ctx context.Context, segment string) (Connection, error)
	// Fees returns the enabled fees from and to a currency.
	Fees(ctx context.Context, currency string) ([]Fee, error)
	// ByNonce returns a merchant's transaction with that nonce (not found).
	ByNonce(ctx context.Context, merchantID int32, nonce string) (Transaction, error)
	// Transaction returns a transaction by id (not found).
	Transaction(ctx context.Context, id int64) (Transaction, error)
	// ByProviderTID returns a provider's transaction by its id (not found).
	ByProviderTID(ctx context.Context, providerID int32, tid string) (Transaction, error)
	// Create inserts t with its journal entries and events; a nonce already
	// used by the merchant is a conflict. Under a view (Views) of a
	// configuration that changed since, it writes nothing and returns
	// ErrStaleView.
	Create(ctx context.Context, t Transaction, logs []LogEntry, events func(Transaction) []proto.Message) (Transaction, error)
	// ChangeStatus applies c when the status is still c.From and returns the
	// transaction after it; otherwise it writes nothing and returns a
	// conflict error (not found for an unknown id).
	ChangeStatus(ctx context.Context, c StatusChange) (Transaction, error)
	// CancelCallbacks flags a transaction's callbacks cancelled when its
	// status is still seen, with its journal entries and events (conflict
	// otherwise, not found for an unknown id).
	CancelCallbacks(ctx context.Context, id int64, seen Status, at time.Time, logs []LogEntry, events func(Transaction) []proto.Message) (Transaction, error)
	// SchedulePoll makes a transaction due for polling at `at` with its
	// attempts reset, when its status is still seen (conflict otherwise).
	SchedulePoll(ctx context.Context, id int64, seen Status, at time.Time, logs []LogEntry, events func(Transaction) []proto.Message) (Transaction, error)
	// List returns the page of transactions f selects, newest first, with
	// the total count and (f.IncludeTotals) the totals per currency.
	List(ctx context.Context, f ListFilter) (ListPage, error)
	// SearchLogs returns the journal payloads of f's window that contain
	// f.Term (case-insensitive), of transactions matching f, oldest first,
	// at most f.Limit.
	SearchLogs(ctx context.Context, f LogSearch) ([]LogPayload, error)
	// AppendLogs adds journal entries.
	AppendLogs(ctx context.Context, logs ...LogEntry) error
	// Logs returns a transaction's journal, oldest first.
	Logs(ctx context.Context, transactionID int64) ([]LogEntry, error)
	// ClaimPolls takes up to limit transactions due for polling at now and
	// moves their next poll to now plus backoff(attempts+1), so that another
	// worker skips them.
	ClaimPolls(ctx context.Context, now time.Time, limit int, backoff func(attempt int32) time.Duration, maxAttempts int32) ([]Transaction, error)
	// ClaimRecoveries takes up to limit transactions still Not Confirmed
	// whose last change is at or before `before` and that were claimed for
	// recovery fewer than maxAttempts times; it counts the attempt and
	// journals entry(t, attempt) in the same Postgres transaction, so
	// another worker (or this one after a crash) skips them.
	ClaimRecoveries(ctx context.Context, before time.Time, limit int, maxAttempts int32, entry func(t Transaction, attempt int32) LogEntry) ([]Recovery, error)
}

// ProviderRequest is a payment as the provider adapter sends it.
type ProviderRequest struct {
	Reference      string
	Type           Type
	Amount         money.Amount
	Currency       string
	PayTypeCode    string
	Tags           []string
	ClientID       string
	AdditionalData map[string]any
}

// Outcome is the provider's word on a payment.
type Outcome string

// The outcomes a provider reports.
const (
	OutcomeSuccess   Outcome = "success"
	OutcomeFailed    Outcome = "failed"
	OutcomePending   Outcome = "pending"
	OutcomeCancelled Outcome = "cancelled"
)

// Exchange is one call to a provider as the journal records it, with its
// result.
type Exchange struct {
	Method, URL     string
	RequestHeaders  map[string]string
	RequestBody     any
	StatusCode      int
	ResponseBody    any
	ProviderTID     string
	Outcome         Outcome
	ProviderMessage string
	// Err is set when the call failed; Network tells a transport failure
	// (no answer) from a bad answer. Its text can be the HTTP client's,
	// which names addresses of the network Paygate runs in: it goes to the
	// log only.
	Err     error
	Network bool
	// Failure says in a sentence why the call failed, without the client's
	// text: what the transaction's error message, its journal and the
	// merchant's callback show. Set with Err.
	Failure string
}

// failure is ex's failure as a sentence.
func (ex Exchange) failure() string {
	if ex.Failure != "" {
		return ex.Failure
	}
	return "The provider gave no usable answer."
}

// ProviderClient calls providers' APIs.
type ProviderClient interface {
	// CreatePayment starts a payment at the provider.
	CreatePayment(ctx context.Context, conn Connection, req ProviderRequest) Exchange
	// PaymentStatus asks for a payment's status.
	PaymentStatus(ctx context.Context, conn Connection, providerTID string) Exchange
}

// DemoWebhookSecret is the webhook secret of the demo providers and the
// sandbox's default (demo mode only).
const DemoWebhookSecret = "sandbox-webhook-secret"

// DemoMerchantSecret is the API secret of a demo merchant (demo mode only):
// "demo-secret-<id>".
func DemoMerchantSecret(merchantID int32) string {
	return "demo-secret-" + strconv.Itoa(int(merchantID))
}
