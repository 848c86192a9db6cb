package payment

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/keyring"
)

// Messages of refusals that several calls share.
const (
	msgTransactionNotFound = "The transaction was not found."
	msgMerchantNotFound    = "The merchant was not found."
	application            = "paygate-gateway"
)

// Sources of status changes, as events and the journal name them.
const (
	SourceProvider = "Provider"
	SourcePolling  = "Polling"
	SourceWebhook  = "Webhook"
	SourceOperator = "Operator"
)

// Options tune the service.
type Options struct {
	// PollInterval is the first polling delay; each further attempt doubles
	// it up to MaxPollInterval.
	PollInterval, MaxPollInterval time.Duration
	// MaxPollAttempts stops polling a transaction after that many attempts.
	MaxPollAttempts int32
	// Logger receives the poller's logs.
	Logger *slog.Logger
	// RecoverAfter is how long a transaction may stay Not Confirmed before
	// the recovery sweep takes it (a crash stranded it); 30 s when zero.
	RecoverAfter time.Duration
	// MaxRecoveryAttempts bounds how often the sweep takes one transaction;
	// 1 when zero.
	MaxRecoveryAttempts int32
	// Validation asks merchants' validation endpoints before the provider;
	// without its Store nothing is validated.
	Validation Validation
	// Credentials returns a collab's provider credentials, opened, for the
	// calls to its provider; none are sent when nil.
	Credentials func(ctx context.Context, collabID int32) (map[string]any, error)
	// Tracer traces the background work (each polled or recovered
	// transaction), whose events then carry its trace; the process's global
	// tracer provider when nil.
	Tracer trace.TracerProvider
}

// Service runs the payment path.
type Service struct {
	store     Store
	providers ProviderClient
	box       *keyring.Keyring
	accepting func(context.Context) error
	now       func() time.Time
	opts      Options
	tracer    trace.Tracer
	// background runs the validation calls that are not awaited.
	background sync.WaitGroup
}

// NewService returns the payment service. accepting refuses new payments
// (maintenance mode: maintenance.Service.CheckAcceptingTransactions); box (the
// PAYGATE_ENCRYPTION_KEYS keyring) opens providers' webhook secrets; now is the clock (time.Now when nil).
func NewService(store Store, providers ProviderClient, box *keyring.Keyring, accepting func(context.Context) error, now func() time.Time, opts Options) *Service {
	if now == nil {
		now = time.Now
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 2 * time.Second
	}
	if opts.MaxPollInterval < opts.PollInterval {
		opts.MaxPollInterval = max(5*time.Minute, opts.PollInterval)
	}
	if opts.MaxPollAttempts <= 0 {
		opts.MaxPollAttempts = 30
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.RecoverAfter <= 0 {
		opts.RecoverAfter = 30 * time.Second
	}
	if opts.MaxRecoveryAttempts <= 0 {
		opts.MaxRecoveryAttempts = 1
	}
	if opts.Validation.Timeout <= 0 {
		opts.Validation.Timeout = DefaultValidationTimeout
	}
	if opts.Tracer == nil {
		opts.Tracer = otel.GetTracerProvider()
	}
	return &Service{store: store, providers: providers, box: box, accepting: accepting, now: now, opts: opts,
		tracer: opts.Tracer.Tracer("github.com/paygate/paygate/services/gateway/internal/payment")}
}

func (s *Service) stamp() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// Get returns a transaction within scope (not found outside it).
func (s *Service) Get(ctx context.Context, scope merchant.Scope, id int64) (Transaction, error) {
	t, err := s.store.Transaction(ctx, id)
	if err != nil {
		if apperr.KindOf(err) == apperr.KindNotFound {
			return Transaction{}, apperr.New(apperr.KindNotFound, err, msgTransactionNotFound)
		}
		return Transaction{}, fmt.Errorf("transaction %d: %w", id, err)
	}
	if !scope.Includes(t.MerchantID) {
		return Transaction{}, apperr.NotFound(msgTransactionNotFound)
	}
	return t, nil
}

// Logs returns a transaction's journal within scope.
func (s *Service) Logs(ctx context.Context, scope merchant.Scope, id int64) ([]LogEntry, error) {
	if _, err := s.Get(ctx, scope, id); err != nil {
		return nil, err
	}
	logs, err := s.store.Logs(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("logs of transaction %d: %w", id, err)
	}
	return logs, nil
}

func withTx(e LogEntry, id int64, at time.Time) LogEntry {
	e.TransactionID, e.At = id, at
	return e
}

// SealedSecret is one API secret of a merchant that is still accepted, as
// stored: sealed, with its id and when it stops being accepted (zero: it
// does not expire).
type SealedSecret struct {
	ID        int64
	Sealed    []byte
	ExpiresAt time.Time
}

// MerchantSecretOwner is the aesgcm owner of a merchant's API secret.
func MerchantSecretOwner(merchantID int32) string { return "merchant:" + strconv.Itoa(int(merchantID)) }

// withCredentials returns conn carrying the provider credentials of collab
// collabID. Credentials that cannot be read (a key removed from the
// keyring, say) are logged and the call goes without them: the provider's
// refusal is then recorded on the transaction like any other, where the
// operator sees it.
func (s *Service) withCredentials(ctx context.Context, conn Connection, collabID int32) Connection {
	if s.opts.Credentials == nil {
		return conn
	}
	c, err := s.opts.Credentials(ctx, collabID)
	if err != nil {
		s.opts.Logger.ErrorContext(ctx, "provider credentials could not be read; the provider is called without them",
			"collab_id", collabID, "error", err)
		return conn
	}
	conn.Credentials = c
	return conn
}
