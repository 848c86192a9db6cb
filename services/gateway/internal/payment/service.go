package payment

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base32"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/money"
	"github.com/paygate/paygate/services/internal/aesgcm"
	"github.com/paygate/paygate/services/internal/apperr"
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
}

// Service runs the payment path.
type Service struct {
	store     Store
	providers ProviderClient
	box       *aesgcm.Box
	accepting func(context.Context) error
	now       func() time.Time
	opts      Options
	// background runs the validation calls that are not awaited.
	background sync.WaitGroup
}

// NewService returns the payment service. accepting refuses new payments
// (maintenance mode: collab.Service.CheckAcceptingTransactions); box opens
// providers' webhook secrets; now is the clock (time.Now when nil).
func NewService(store Store, providers ProviderClient, box *aesgcm.Box, accepting func(context.Context) error, now func() time.Time, opts Options) *Service {
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
	return &Service{store: store, providers: providers, box: box, accepting: accepting, now: now, opts: opts}
}

func (s *Service) stamp() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// Initiator is who starts a payment: an operator (Admin) or a merchant whose
// signature was verified.
type Initiator struct {
	// Operator is true for a signed-in Admin; then Username names them.
	Operator bool
	Username string
	// MerchantID is the verified merchant when Operator is false.
	MerchantID int32
	// IP and UserAgent are the caller's.
	IP, UserAgent string
}

// InitRequest is the payment payload of spec 02 §3.
type InitRequest struct {
	Nonce          string
	Amount         string
	Currency       string
	ProviderID     int32
	PayType        string
	ProviderTags   []string
	MerchantHash   string
	ClientID       string
	AdditionalData map[string]any
	CashIn         bool
}

// Initialize starts a payment and answers once the provider has answered
// (or the collab's mode decided). Before the provider, when the collab
// validates the payment's direction, the collab's validation endpoints for
// that direction are asked: the awaitable ones in priority order, the first
// veto making the transaction Validation Failed (the provider is then not
// called); the others in the background. The same merchant and nonce answer the
// transaction made first, without a second one; a nonce reused with another
// payment is a conflict. Refusals: invalid input, unknown merchant (not
// found), maintenance, a disabled collab, provider, direction or pay type,
// an amount outside the limits (failed precondition) — each before anything
// is written.
func (s *Service) Initialize(ctx context.Context, who Initiator, r InitRequest) (Transaction, error) {
	t, err := s.validate(r)
	if err != nil {
		return Transaction{}, err
	}
	var (
		created Transaction
		d       decision
		vctx    context.Context
	)
	// Decided on a view of the configuration; a view that turns out to be
	// stale (the create refuses it, or a refusal is not confirmed) is
	// replaced by a fresh one and the payment decided again.
	for attempt := 0; ; attempt++ {
		vctx, err = s.view(ctx, attempt > 0)
		if err != nil {
			return Transaction{}, err
		}
		d, err = s.decide(vctx, who, r, t)
		if err == nil {
			created, err = s.store.Create(vctx, d.t, d.logs, func(after Transaction) []proto.Message {
				return []proto.Message{&eventsv1.TransactionCreated{Transaction: state(after)}}
			})
			if errors.Is(err, ErrStaleView) && attempt < maxViewAttempts {
				continue
			}
		} else if d.refusal && attempt < maxViewAttempts {
			if current, cerr := s.current(vctx); cerr != nil {
				return Transaction{}, cerr
			} else if !current {
				continue
			}
		}
		if err == nil {
			break
		}
		if d.refusal || apperr.KindOf(err) == apperr.KindConflict {
			// The merchant's transaction with this nonce is the answer,
			// whatever the configuration says now; a concurrent call with
			// the same nonce may have won.
			if existing, ok, err2 := s.existing(ctx, d.merchant.ID, t); ok || err2 != nil {
				return existing, err2
			}
		}
		return Transaction{}, err
	}
	// The validation endpoints are read on the view the payment was created
	// on.
	created, proceed, err := s.validateNew(vctx, created, d.collab)
	if err != nil {
		return Transaction{}, err
	}
	if !proceed {
		return created, nil
	}
	return s.submit(ctx, created, d.collab, d.conn, d.payType, r)
}

// maxViewAttempts bounds how often a payment is decided again on a fresh
// view of the configuration.
const maxViewAttempts = 3

// view returns ctx under a view of the configuration when the store keeps
// one (Views), fresh or not.
func (s *Service) view(ctx context.Context, fresh bool) (context.Context, error) {
	if v, ok := s.store.(Views); ok {
		return v.View(ctx, fresh)
	}
	return ctx, nil
}

// current reports whether ctx's view of the configuration is still current.
func (s *Service) current(ctx context.Context) (bool, error) {
	if v, ok := s.store.(Views); ok {
		return v.Current(ctx)
	}
	return true, nil
}

// decision is what Initialize decided from the configuration: the
// transaction to create with its journal entries, and what the provider
// call needs.
type decision struct {
	t        Transaction
	logs     []LogEntry
	merchant merchant.Merchant
	collab   Collab
	conn     Connection
	payType  CollabPayType
	// refusal is set when the error is the configuration's refusal of the
	// payment (maintenance, collab, limits, provider): an existing
	// transaction with the nonce is the answer instead.
	refusal bool
}

// decide reads the configuration and decides on the payment t: a refusal, or
// the transaction to create.
func (s *Service) decide(ctx context.Context, who Initiator, r InitRequest, t Transaction) (decision, error) {
	var d decision
	m, err := s.store.MerchantByHash(ctx, r.MerchantHash)
	if err != nil {
		if apperr.KindOf(err) == apperr.KindNotFound {
			return d, apperr.New(apperr.KindNotFound, err, msgMerchantNotFound)
		}
		return d, fmt.Errorf("merchant by hash: %w", err)
	}
	if !who.Operator && who.MerchantID != m.ID {
		return d, apperr.Forbidden("The signature's merchant does not match merchantHash.")
	}
	d.merchant = m
	refuse := func(err error) (decision, error) {
		d.refusal = apperr.KindOf(err) != apperr.KindInternal
		return d, err
	}
	if err := s.accepting(ctx); err != nil {
		return refuse(err)
	}
	c, err := s.store.MerchantCollab(ctx, m.ID, r.ProviderID)
	if err != nil {
		if apperr.KindOf(err) == apperr.KindNotFound {
			return refuse(apperr.New(apperr.KindFailedPrecondition, err, "The merchant has no collaboration with provider %d.", r.ProviderID))
		}
		return d, fmt.Errorf("collab of merchant %d and provider %d: %w", m.ID, r.ProviderID, err)
	}
	pt, err := checkCollab(c, t.Type, r.PayType, t.Amount)
	if err != nil {
		return refuse(err)
	}
	conn, err := s.connection(ctx, c.ProviderID, c.ProviderName)
	if err != nil {
		if apperr.KindOf(err) == apperr.KindFailedPrecondition {
			return refuse(err)
		}
		return d, err
	}
	fees, err := s.store.Fees(ctx, t.Currency)
	if err != nil {
		return d, fmt.Errorf("fees: %w", err)
	}
	d.collab, d.conn, d.payType = c, conn, pt

	now := s.stamp()
	t.ReferenceID, err = newReference()
	if err != nil {
		return d, err
	}
	t.MerchantID, t.MerchantName = m.ID, m.Name
	t.CollabID, t.ProviderID, t.ProviderName = c.ID, c.ProviderID, c.ProviderName
	t.PayTypeID, t.PayTypeName = pt.PayTypeID, pt.Name
	t.Status, t.StatusMessage = StatusNotConfirmed, StatusNotConfirmed.String()
	t.PaymentIP, t.UserAgent = who.IP, who.UserAgent
	t.CreatedAt, t.UpdatedAt = now, now
	logs := []LogEntry{{
		At: now, Stage: StageInitialization, Level: LevelInfo, SourceContext: "payment.Initialize",
		Message: fmt.Sprintf("Payment of %s %s by %s accepted: %s, %s.", t.Amount, t.Currency, initiatorName(who, m), c.Name(), pt.Label()),
		Content: map[string]any{"nonce": t.Nonce, "amount": t.Amount.String(), "currency": t.Currency, "providerId": t.ProviderID,
			"payType": pt.Code, "providerTags": t.ProviderTags, "cashIn": r.CashIn, "merchantClientId": t.MerchantClientID,
			"additionalData": Mask(t.AccountData)},
		AuthData: initiatorName(who, m),
	}}
	if f, ok := SelectFee(fees, c.ID, t.Type, pt.PayTypeID, t.Currency, t.Amount); ok {
		t.Fee = AppliedFee{ID: f.ID, Type: f.FeeType, Value: f.Value, Amount: f.Charge(t.Amount), Currency: t.Currency, Payer: f.Payer}
		logs[0].Message += fmt.Sprintf(" Fee %d applied: %s %s.", f.ID, t.Fee.Amount, t.Currency)
	}
	logs = append(logs, LogEntry{At: now, Stage: StageCreation, Level: LevelInfo, SourceContext: "payment.Initialize",
		Message:           fmt.Sprintf("Transaction %s created with status %s.", t.ReferenceID, t.Status),
		TransactionUpdate: map[string]any{"to": int(t.Status)}})
	d.t, d.logs = t, logs
	return d, nil
}

// connection returns how to reach a provider; a provider without one is a
// failed precondition the operator can fix by configuring it.
func (s *Service) connection(ctx context.Context, providerID int32, providerName string) (Connection, error) {
	conn, err := s.store.Connection(ctx, providerID)
	if apperr.KindOf(err) == apperr.KindNotFound {
		return Connection{}, apperr.New(apperr.KindFailedPrecondition, err, "The provider %s has no API address configured.", providerName)
	}
	if err != nil {
		return Connection{}, fmt.Errorf("connection of provider %d: %w", providerID, err)
	}
	return conn, nil
}

// existing returns the merchant's transaction with t's nonce, refusing a
// nonce reused for another payment.
func (s *Service) existing(ctx context.Context, merchantID int32, t Transaction) (Transaction, bool, error) {
	prev, err := s.store.ByNonce(ctx, merchantID, t.Nonce)
	if apperr.KindOf(err) == apperr.KindNotFound {
		return Transaction{}, false, nil
	}
	if err != nil {
		return Transaction{}, false, fmt.Errorf("transaction by nonce: %w", err)
	}
	if prev.Amount != t.Amount || prev.Currency != t.Currency || prev.Type != t.Type {
		return Transaction{}, false, apperr.Conflict("The nonce %q was already used for another payment (%s %s).", t.Nonce, prev.Amount, prev.Currency)
	}
	return prev, true, nil
}

func initiatorName(who Initiator, m merchant.Merchant) string {
	if who.Operator {
		return "operator " + who.Username
	}
	return "merchant " + m.Name + " (signature verified)"
}

// validate checks the payload's own rules and returns the transaction's
// fields it gives.
func (s *Service) validate(r InitRequest) (Transaction, error) {
	var problems []string
	nonce := strings.TrimSpace(r.Nonce)
	if nonce == "" || len(nonce) > 100 {
		problems = append(problems, "paymentData.nonce is required (at most 100 characters)")
	}
	amount, err := ParseAmount(r.Amount)
	if err != nil {
		problems = append(problems, err.Error())
	}
	currency := strings.ToUpper(strings.TrimSpace(r.Currency))
	if len(currency) < 3 || len(currency) > 10 || !letters(currency) {
		problems = append(problems, "paymentData.currency must be a currency code such as PHP")
	}
	if r.ProviderID <= 0 {
		problems = append(problems, "paymentData.providerId is required")
	}
	if strings.TrimSpace(r.PayType) == "" {
		problems = append(problems, "paymentData.payType is required")
	}
	if strings.TrimSpace(r.MerchantHash) == "" {
		problems = append(problems, "merchantData.merchantHash is required")
	}
	if len(r.ClientID) > 120 {
		problems = append(problems, "merchantData.clientId is at most 120 characters")
	}
	if len(problems) > 0 {
		return Transaction{}, apperr.Invalid("The payment is not valid: %s.", strings.Join(problems, "; "))
	}
	t := Transaction{
		Nonce: nonce, Amount: amount, Currency: currency, DestinationAmount: amount, DestinationCurrency: currency,
		ProviderTags: cleanTags(r.ProviderTags), MerchantClientID: strings.TrimSpace(r.ClientID), AccountData: r.AdditionalData,
		Type: TypeWithdrawal,
	}
	if r.CashIn {
		t.Type = TypeDeposit
	}
	if t.AccountData == nil {
		t.AccountData = map[string]any{}
	}
	return t, nil
}

func letters(s string) bool {
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

func cleanTags(tags []string) []string {
	out := []string{}
	for _, t := range tags {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// ParseAmount reads a payment amount: a positive decimal with at most two
// fraction digits. Errors are plain (the caller wraps them).
func ParseAmount(s string) (money.Amount, error) {
	a, err := money.Parse("paymentData.amount", s)
	if err != nil {
		var ae *apperr.Error
		if errors.As(err, &ae) {
			return money.Amount{}, errors.New(strings.TrimSuffix(ae.Message, "."))
		}
		return money.Amount{}, err
	}
	if !a.IsSet() || a.CentsValue() <= 0 {
		return money.Amount{}, errors.New("paymentData.amount must be more than 0")
	}
	return a, nil
}

// checkCollab refuses a payment the collab cannot take and returns its pay
// type.
func checkCollab(c Collab, t Type, payType string, amount money.Amount) (CollabPayType, error) {
	if !c.ProviderEnabled {
		return CollabPayType{}, apperr.FailedPrecondition("The provider %s is disabled.", c.ProviderName)
	}
	if !c.Enabled {
		return CollabPayType{}, apperr.FailedPrecondition("The collaboration %s is disabled.", c.Name())
	}
	dir := "Deposits"
	if t == TypeWithdrawal {
		dir = "Withdrawals"
	}
	if (t == TypeDeposit && !c.Deposits) || (t == TypeWithdrawal && !c.Withdrawals) {
		return CollabPayType{}, apperr.FailedPrecondition("%s are disabled on the collaboration %s.", dir, c.Name())
	}
	i := slices.IndexFunc(c.PayTypes, func(pt CollabPayType) bool {
		return strconv.Itoa(int(pt.PayTypeID)) == strings.TrimSpace(payType) || strings.EqualFold(pt.Code, strings.TrimSpace(payType))
	})
	if i < 0 {
		return CollabPayType{}, apperr.FailedPrecondition("The pay type %q is not available on the collaboration %s.", payType, c.Name())
	}
	pt := c.PayTypes[i]
	if (t == TypeDeposit && !pt.Deposits) || (t == TypeWithdrawal && !pt.Withdrawals) {
		return CollabPayType{}, apperr.FailedPrecondition("%s with %s are disabled on the collaboration %s.", dir, pt.Label(), c.Name())
	}
	for _, l := range []struct {
		what   string
		limits Limits
	}{{"the collaboration", c.Limits}, {pt.Label(), pt.Limits}} {
		lo, hi := l.limits.MinDeposit, l.limits.MaxDeposit
		if t == TypeWithdrawal {
			lo, hi = l.limits.MinWithdraw, l.limits.MaxWithdraw
		}
		if lo.IsSet() && amount.CentsValue() < lo.CentsValue() {
			return CollabPayType{}, apperr.FailedPrecondition("The amount %s is below the minimum of %s for %s.", amount, lo, l.what)
		}
		if hi.IsSet() && amount.CentsValue() > hi.CentsValue() {
			return CollabPayType{}, apperr.FailedPrecondition("The amount %s is above the maximum of %s for %s.", amount, hi, l.what)
		}
	}
	return pt, nil
}

var refEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// newReference returns an opaque unique reference: "PG" and 26 random
// base32 characters (128 bits).
func newReference() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("reference id: %w", err)
	}
	return "PG" + refEncoding.EncodeToString(b), nil
}

// submit sends a new transaction to its provider, or settles it by the
// collab's mode, and records the outcome.
func (s *Service) submit(ctx context.Context, t Transaction, c Collab, conn Connection, pt CollabPayType, r InitRequest) (Transaction, error) {
	switch c.Forced {
	case ForcedSuccess, ForcedFailure:
		to, msg := StatusSuccess, "Success forced by the collaboration's mode (Always Success); the provider was not called."
		errMsg := ""
		if c.Forced == ForcedFailure {
			to, msg = StatusPSPError, "Failure forced by the collaboration's mode (Always Failed); the provider was not called."
			errMsg = msg
		}
		return s.change(ctx, t, SourceProvider, StatusChange{To: to, Message: msg, ErrorMessage: errMsg,
			Logs: []LogEntry{{Stage: StageAPIRequest, Level: LevelInfo, Message: msg, SourceContext: "payment.submit"}}})
	}
	ex := s.providers.CreatePayment(ctx, conn, ProviderRequest{
		Reference: t.ReferenceID, Type: t.Type, Amount: t.Amount, Currency: t.Currency, PayTypeCode: pt.Code,
		Tags: t.ProviderTags, ClientID: t.MerchantClientID, AdditionalData: r.AdditionalData,
	})
	ch := s.outcomeChange(t, conn, ex, "payment.submit")
	ch.Logs = append([]LogEntry{
		{Stage: StageAPIRequest, Level: LevelInfo, SourceContext: "payment.submit", Message: fmt.Sprintf("%s %s", ex.Method, ex.URL),
			Content: Mask(ex.RequestBody), Headers: MaskHeaders(ex.RequestHeaders)},
		responseLog(StageAPIResponse, ex, "payment.submit"),
	}, ch.Logs...)
	return s.change(ctx, t, SourceProvider, ch)
}

// responseLog journals a provider's answer (or its absence).
func responseLog(stage Stage, ex Exchange, source string) LogEntry {
	e := LogEntry{Stage: stage, Level: LevelInfo, SourceContext: source, Content: Mask(ex.ResponseBody),
		Message: fmt.Sprintf("%s %s answered %d: %s", ex.Method, ex.URL, ex.StatusCode, ex.Outcome)}
	if ex.Err != nil {
		e.Level = LevelError
		e.Message = fmt.Sprintf("%s %s failed: %v", ex.Method, ex.URL, ex.Err)
		typ := "ProviderError"
		if ex.Network {
			typ = "NetworkError"
		}
		e.Exception = &LogException{Type: typ, Message: ex.Err.Error()}
	}
	return e
}

// outcomeChange turns a provider exchange into the status change it calls
// for (To == t.Status when nothing changes).
func (s *Service) outcomeChange(t Transaction, conn Connection, ex Exchange, source string) StatusChange {
	ch := StatusChange{To: t.Status, ProviderTID: ex.ProviderTID}
	if ex.ResponseBody != nil {
		if m, ok := Mask(ex.ResponseBody).(map[string]any); ok {
			ch.ProviderData = m
		}
	}
	switch {
	case ex.Err != nil && ex.Network:
		ch.To, ch.Message, ch.ErrorMessage = StatusNetworkError, "The provider could not be reached.", ex.Err.Error()
	case ex.Err != nil:
		ch.To, ch.Message, ch.ErrorMessage = StatusPSPGeneric, "The provider answered with an error.", ex.Err.Error()
	default:
		switch ex.Outcome {
		case OutcomeSuccess:
			ch.To, ch.Message = StatusSuccess, orDefault(ex.ProviderMessage, "The provider confirmed the payment.")
		case OutcomeFailed:
			ch.To, ch.Message = StatusPSPError, orDefault(ex.ProviderMessage, "The provider declined the payment.")
			ch.ErrorMessage = ch.Message
		case OutcomeCancelled:
			ch.To, ch.Message = StatusCancelled, orDefault(ex.ProviderMessage, "The provider cancelled the payment.")
		case OutcomePending:
			ch.To, ch.Message = StatusPending, orDefault(ex.ProviderMessage, "The provider is processing the payment.")
			if conn.SupportsPolling {
				next := s.stamp().Add(s.opts.PollInterval)
				ch.NextPollAt = &next
			}
		default:
			ch.To, ch.Message = StatusPSPGeneric, fmt.Sprintf("The provider reported an unknown status %q.", ex.Outcome)
			ch.ErrorMessage = ch.Message
		}
	}
	return ch
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// change applies a status change decided on t, with its Status Change entry
// and event. A change to the same status only journals.
func (s *Service) change(ctx context.Context, t Transaction, source string, ch StatusChange) (Transaction, error) {
	now := s.stamp()
	ch.ID, ch.From, ch.At = t.ID, t.Status, now
	if ch.To == t.Status && ch.ProviderTID == "" {
		for i := range ch.Logs {
			ch.Logs[i].TransactionID, ch.Logs[i].At = t.ID, now
		}
		if err := s.store.AppendLogs(ctx, ch.Logs...); err != nil {
			return Transaction{}, err
		}
		return t, nil
	}
	if ch.To != t.Status {
		e := LogEntry{Stage: StageStatusChange, Level: LevelInfo, SourceContext: "payment." + strings.ToLower(source),
			Message:           fmt.Sprintf("Status changed from %s to %s (%s): %s", t.Status, ch.To, source, ch.Message),
			TransactionUpdate: map[string]any{"from": int(t.Status), "to": int(ch.To), "source": source}}
		if ch.To.Final() && ch.To != StatusSuccess {
			e.Level = LevelWarning
		}
		ch.Logs = append(ch.Logs, e)
	}
	for i := range ch.Logs {
		ch.Logs[i].TransactionID, ch.Logs[i].At = t.ID, now
	}
	from := t.Status
	var callbacksOff bool
	if ch.To.Final() && ch.To != from {
		c, err := s.store.MerchantCollab(ctx, t.MerchantID, t.ProviderID)
		if err != nil {
			return Transaction{}, fmt.Errorf("collab of transaction %d: %w", t.ID, err)
		}
		callbacksOff = !c.Callbacks
	}
	if source == SourceProvider {
		// The provider's answer to a payment just made: nobody else read
		// the counters the returned transaction may be behind on.
		ch.Seen = &t
	}
	ch.Events = func(after Transaction) []proto.Message {
		if after.Status == from {
			return nil
		}
		if after.Status.Final() {
			return []proto.Message{&eventsv1.TransactionFinalized{Transaction: state(after), PreviousStatus: int32(from), Source: source,
				MerchantCallbacksOff: callbacksOff}}
		}
		return []proto.Message{&eventsv1.TransactionUpdated{Transaction: state(after), PreviousStatus: int32(from), Source: source}}
	}
	return s.store.ChangeStatus(ctx, ch)
}

func state(t Transaction) *eventsv1.TransactionState {
	return &eventsv1.TransactionState{
		TransactionId: t.ID, ReferenceId: t.ReferenceID, MerchantId: t.MerchantID, CollabId: t.CollabID,
		ProviderId: t.ProviderID, Nonce: t.Nonce, TransactionType: int32(t.Type), Amount: t.Amount.String(),
		Currency: t.Currency, Status: int32(t.Status), StatusMessage: t.StatusMessage,
		ProviderTransactionId: t.ProviderTID, UpdatedAt: timestamppb.New(t.UpdatedAt),
		CallbackSendingCanceled: t.CallbacksCanceled, MerchantClientId: t.MerchantClientID,
		DestinationAmount: t.DestinationAmount.String(), DestinationCurrency: t.DestinationCurrency,
		ErrorMessage: t.ErrorMessage, CreatedAt: timestamppb.New(t.CreatedAt),
	}
}

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

// Operator is a signed-in user changing a transaction.
type Operator struct {
	UserID        int64
	Username      string
	IP, UserAgent string
	Scope         merchant.Scope
}

// SetStatus sets a transaction's status by hand when its status is still
// seen: a conflict otherwise, and nothing is written. Setting the status it
// already has changes nothing.
func (s *Service) SetStatus(ctx context.Context, op Operator, id int64, to, seen Status) (Transaction, error) {
	if !to.Known() {
		return Transaction{}, apperr.Invalid("%d is not a transaction status.", to)
	}
	t, err := s.Get(ctx, op.Scope, id)
	if err != nil {
		return Transaction{}, err
	}
	if t.Status != seen {
		return Transaction{}, staleConflict(id, t.Status)
	}
	if to == seen {
		return t, nil
	}
	msg := fmt.Sprintf("Status set to %s by %s.", to, op.Username)
	ch := StatusChange{To: to, Message: msg, Logs: []LogEntry{{
		Stage: StageUIUpdate, Level: LevelInfo, SourceContext: "payment.SetStatus", Message: msg,
		AuthData: fmt.Sprintf("user %d (%s) from %s", op.UserID, op.Username, op.IP),
		Content:  map[string]any{"status": int(to), "transactionStatus": int(seen), "userAgent": op.UserAgent},
	}}}
	if to.Final() && to != StatusSuccess {
		ch.ErrorMessage = msg
	}
	after, err := s.change(ctx, t, SourceOperator, ch)
	if apperr.KindOf(err) == apperr.KindConflict {
		cur, err2 := s.store.Transaction(ctx, id)
		if err2 == nil {
			return Transaction{}, staleConflict(id, cur.Status)
		}
	}
	return after, err
}

func staleConflict(id int64, now Status) error {
	return apperr.Conflict("Transaction with id %d status changed (it is now %s). Reload and try again.", id, now)
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

// Webhook is a provider's status report as the webhook endpoint received it.
type Webhook struct {
	Segment     string
	Secret      string
	ProviderTID string
	Reference   string
	Outcome     Outcome
	Message     string
	Body        any
	Headers     map[string]string
}

// HandleWebhook applies a provider's status report. A wrong or missing
// secret is unauthenticated; an unknown transaction is not found; a report
// on a final transaction is journaled and ignored.
func (s *Service) HandleWebhook(ctx context.Context, w Webhook) (Transaction, error) {
	conn, err := s.store.ConnectionBySegment(ctx, w.Segment)
	if err != nil {
		if apperr.KindOf(err) == apperr.KindNotFound {
			return Transaction{}, apperr.New(apperr.KindNotFound, err, "The provider was not found.")
		}
		return Transaction{}, err
	}
	secret, err := s.box.Open(conn.WebhookSecretSealed, ProviderSecretOwner(conn.ProviderID))
	if err != nil {
		return Transaction{}, fmt.Errorf("open webhook secret of provider %d: %w", conn.ProviderID, err)
	}
	if w.Secret == "" || subtle.ConstantTimeCompare(secret, []byte(w.Secret)) != 1 {
		return Transaction{}, apperr.Unauthenticated("The webhook secret is missing or wrong.")
	}
	var t Transaction
	switch {
	case w.ProviderTID != "":
		t, err = s.store.ByProviderTID(ctx, conn.ProviderID, w.ProviderTID)
	default:
		err = apperr.NotFound(msgTransactionNotFound)
	}
	if err != nil {
		if apperr.KindOf(err) == apperr.KindNotFound {
			return Transaction{}, apperr.New(apperr.KindNotFound, err, msgTransactionNotFound)
		}
		return Transaction{}, err
	}
	for attempt := 0; ; attempt++ {
		entry := LogEntry{Stage: StageCallbackProcessing, Level: LevelInfo, SourceContext: "payment.HandleWebhook",
			Message:        fmt.Sprintf("Webhook from %s: %s.", conn.ProviderName, w.Outcome),
			WebhookRequest: Mask(w.Body), WebhookHeaders: MaskHeaders(w.Headers), AuthData: "provider " + conn.PathSegment + " (shared secret verified)",
			WebhookResponse: map[string]any{"status": 200}}
		if t.Status.Final() {
			entry.Level, entry.Message = LevelWarning, entry.Message+fmt.Sprintf(" Ignored: the transaction is already final (%s).", t.Status)
			return t, s.store.AppendLogs(ctx, withTx(entry, t.ID, s.stamp()))
		}
		ex := Exchange{Outcome: w.Outcome, ProviderMessage: w.Message, ResponseBody: w.Body}
		ch := s.outcomeChange(t, conn, ex, "payment.HandleWebhook")
		ch.ProviderTID = ""
		ch.Logs = []LogEntry{entry}
		after, err := s.change(ctx, t, SourceWebhook, ch)
		if apperr.KindOf(err) != apperr.KindConflict || attempt > 2 {
			return after, err
		}
		// The status moved under us (polling): decide again on the new one.
		if t, err = s.store.Transaction(ctx, t.ID); err != nil {
			return Transaction{}, err
		}
	}
}

func withTx(e LogEntry, id int64, at time.Time) LogEntry {
	e.TransactionID, e.At = id, at
	return e
}

// ProviderSecretOwner is the aesgcm owner of a provider's webhook secret.
func ProviderSecretOwner(providerID int32) string { return "provider:" + strconv.Itoa(int(providerID)) }

// MerchantSecretOwner is the aesgcm owner of a merchant's API secret.
func MerchantSecretOwner(merchantID int32) string { return "merchant:" + strconv.Itoa(int(merchantID)) }

// backoff is the delay before poll attempt n (1-based).
func (s *Service) backoff(n int32) time.Duration {
	d := s.opts.PollInterval
	for i := int32(1); i < n && d < s.opts.MaxPollInterval; i++ {
		d *= 2
	}
	return min(d, s.opts.MaxPollInterval)
}

// PollOnce polls the transactions due now and returns how many it polled.
func (s *Service) PollOnce(ctx context.Context) (int, error) {
	ts, err := s.store.ClaimPolls(ctx, s.stamp(), 50, s.backoff, s.opts.MaxPollAttempts)
	if err != nil {
		return 0, fmt.Errorf("claim polls: %w", err)
	}
	for _, t := range ts {
		if err := s.poll(ctx, t); err != nil && ctx.Err() == nil {
			s.opts.Logger.WarnContext(ctx, "poll transaction", "transaction_id", t.ID, "error", err)
		}
	}
	return len(ts), nil
}

func (s *Service) poll(ctx context.Context, t Transaction) error {
	conn, err := s.store.Connection(ctx, t.ProviderID)
	if err != nil {
		return err
	}
	ex := s.providers.PaymentStatus(ctx, conn, t.ProviderTID)
	entry := responseLog(StagePolling, ex, "payment.poll")
	entry.Message = fmt.Sprintf("Poll %d: %s", t.PollAttempts, entry.Message)
	if ex.Err != nil || ex.Outcome == OutcomePending {
		// Try again at the next poll (ClaimPolls already moved it).
		if ex.Err != nil {
			entry.Level = LevelWarning
		}
		return s.store.AppendLogs(ctx, withTx(entry, t.ID, s.stamp()))
	}
	ch := s.outcomeChange(t, conn, ex, "payment.poll")
	ch.ProviderTID = ""
	ch.Logs = []LogEntry{entry}
	_, err = s.change(ctx, t, SourcePolling, ch)
	if apperr.KindOf(err) == apperr.KindConflict {
		return nil // a webhook or an operator got there first
	}
	return err
}

// RunPoller polls due transactions and recovers stranded ones (RecoverOnce)
// every interval until ctx ends.
func (s *Service) RunPoller(ctx context.Context, interval time.Duration) error {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		for {
			n, err := s.RecoverOnce(ctx)
			if err != nil && ctx.Err() == nil {
				s.opts.Logger.WarnContext(ctx, "recover", "error", err)
			}
			if n == 0 || err != nil {
				break
			}
		}
		for {
			n, err := s.PollOnce(ctx)
			if err != nil && ctx.Err() == nil {
				s.opts.Logger.WarnContext(ctx, "poll", "error", err)
			}
			if n == 0 || err != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}
