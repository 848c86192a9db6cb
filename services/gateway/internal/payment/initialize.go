package payment

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/money"
	"github.com/paygate/paygate/services/internal/apperr"
)

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
	if m.Disabled {
		return refuse(apperr.FailedPrecondition("The merchant %s is disabled: its payments are refused.", m.Name))
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
	if len(r.ClientID) > MaxClientIDLen {
		problems = append(problems, fmt.Sprintf("merchantData.clientId is at most %d characters", MaxClientIDLen))
	}
	if len(r.ProviderTags) > MaxProviderTags {
		problems = append(problems, fmt.Sprintf("paymentData.providerTags holds at most %d tags", MaxProviderTags))
	}
	for _, tag := range r.ProviderTags {
		if len(tag) > MaxProviderTagLen {
			problems = append(problems, fmt.Sprintf("each of paymentData.providerTags is at most %d characters", MaxProviderTagLen))
			break
		}
	}
	if p := additionalDataProblem(r.AdditionalData); p != "" {
		problems = append(problems, p)
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

// Limits of a payment's free-form parts (docs/contracts-transactions.md).
const (
	// MaxClientIDLen is the longest merchantData.clientId, in bytes, and
	// so the bound of the filters that match it (merchantCid,
	// merchantClientId), in characters.
	MaxClientIDLen = 120
	// MaxProviderTags is how many provider tags a payment may carry.
	MaxProviderTags = 20
	// MaxProviderTagLen is the longest provider tag, in bytes.
	MaxProviderTagLen = 100
	// MaxAdditionalDataBytes bounds merchantData.additionalData as JSON.
	MaxAdditionalDataBytes = 16 << 10
	// MaxAdditionalDataDepth bounds its nesting (the object itself is 1).
	MaxAdditionalDataDepth = 5
)

// additionalDataProblem returns why additional data is over its limits, or "".
func additionalDataProblem(data map[string]any) string {
	if len(data) == 0 {
		return ""
	}
	if depthOf(data) > MaxAdditionalDataDepth {
		return fmt.Sprintf("merchantData.additionalData nests at most %d levels deep", MaxAdditionalDataDepth)
	}
	if b, err := json.Marshal(data); err != nil || len(b) > MaxAdditionalDataBytes {
		return fmt.Sprintf("merchantData.additionalData is at most %d KiB as JSON", MaxAdditionalDataBytes>>10)
	}
	return ""
}

// depthOf is how deep a decoded JSON value nests: 1 for an object or list of
// plain values, 0 for a plain value.
func depthOf(v any) int {
	deepest := 0
	switch x := v.(type) {
	case map[string]any:
		for _, item := range x {
			deepest = max(deepest, depthOf(item))
		}
	case []any:
		for _, item := range x {
			deepest = max(deepest, depthOf(item))
		}
	default:
		return 0
	}
	return deepest + 1
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
	ex := s.providers.CreatePayment(ctx, s.withCredentials(ctx, conn, t.CollabID), ProviderRequest{
		Reference: t.ReferenceID, Type: t.Type, Amount: t.Amount, Currency: t.Currency, PayTypeCode: pt.Code,
		Tags: t.ProviderTags, ClientID: t.MerchantClientID, AdditionalData: r.AdditionalData,
	})
	s.logProviderFailure(ctx, t, ex, "payment.submit")
	ch := s.outcomeChange(t, conn, ex, "payment.submit")
	ch.Logs = append([]LogEntry{
		{Stage: StageAPIRequest, Level: LevelInfo, SourceContext: "payment.submit", Message: fmt.Sprintf("%s %s", ex.Method, ex.URL),
			Content: Mask(ex.RequestBody), Headers: MaskHeaders(ex.RequestHeaders)},
		responseLog(StageAPIResponse, ex, "payment.submit"),
	}, ch.Logs...)
	return s.change(ctx, t, SourceProvider, ch)
}
