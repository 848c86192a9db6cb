package payment

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/validation"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/stdwebhooks"
)

// SourceValidation is the source of a status change decided by a validation
// endpoint (a veto: Validation Failed).
const SourceValidation = "Validation"

const (
	msgResultNotFound = "The validation result was not found."
	validationSource  = "payment.validation"
	// DefaultValidationTimeout bounds one call to a validation endpoint when
	// Validation.Timeout is not set.
	DefaultValidationTimeout = 5 * time.Second
)

// Validation is what the payment path needs to ask merchants' validation
// endpoints (Options.Validation). Without a Store, nothing is validated.
type Validation struct {
	// Store keeps endpoints and results.
	Store ValidationStore
	// Caller posts the requests (netguard's client: user-supplied URLs).
	Caller validation.Caller
	// Timeout bounds one call; DefaultValidationTimeout when zero.
	Timeout time.Duration
	// MerchantKey returns the key a merchant's validation requests are
	// signed with (its API secret, docs/contracts-validation.md); a merchant
	// without one (not found) is sent them unsigned. Nil signs none.
	MerchantKey func(ctx context.Context, merchantID int32) ([]byte, error)
}

// Answer is an endpoint's answer to a result, as RecordAnswer stores it.
type Answer struct {
	ResultID      int64
	TransactionID int64
	Status        validation.Status
	ResponseCode  int32
	Message       string
	At            time.Time
	// OnlyPending keeps the result's status, code and message when it is
	// no longer pending (an operator decided while the endpoint was asked);
	// the attempt is still counted and journaled.
	OnlyPending bool
	// Logs are journal entries written with the answer.
	Logs []LogEntry
}

// ValidationStore keeps validation endpoints and results.
type ValidationStore interface {
	// Endpoints returns a collab's validation endpoints ordered by
	// priority, then id.
	Endpoints(ctx context.Context, collabID int32) ([]validation.Endpoint, error)
	// CreateResults stores a transaction's pending results in the order
	// given, with journal entries, and returns them with their ids.
	CreateResults(ctx context.Context, transactionID int64, rs []validation.Result, at time.Time, logs []LogEntry) ([]validation.Result, error)
	// Results returns a transaction's results in the order they are asked.
	Results(ctx context.Context, transactionID int64) ([]validation.Result, error)
	// Result returns one result (not found).
	Result(ctx context.Context, id int64) (validation.Result, error)
	// RecordAnswer stores an answer (attempts + 1) with its journal
	// entries; a transaction still Not Confirmed counts it as progress (its
	// updated_at moves to a.At), so the recovery sweep leaves it alone while
	// its endpoints answer. Returns the result as stored (not found).
	RecordAnswer(ctx context.Context, a Answer) (validation.Result, error)
	// SetResultStatus stores an operator's status with its journal entries
	// and returns the result as stored (not found).
	SetResultStatus(ctx context.Context, id int64, status validation.Status, at time.Time, logs []LogEntry) (validation.Result, error)
}

func (s *Service) validationOn() bool { return s.opts.Validation.Store != nil }

// validateNew asks the validation endpoints of a transaction just created,
// when the collab validates its direction. It reports whether the payment
// may go on to the provider; when not, the transaction it returns is the
// one a veto made Validation Failed.
func (s *Service) validateNew(ctx context.Context, t Transaction, c Collab) (Transaction, bool, error) {
	if !s.validationOn() || !validatesDirection(c, t.Type) {
		return t, true, nil
	}
	vs := s.opts.Validation.Store
	eps, err := vs.Endpoints(ctx, c.ID)
	if err != nil {
		return Transaction{}, false, fmt.Errorf("validation endpoints of collab %d: %w", c.ID, err)
	}
	pending := validation.Pending(eps, t.Type == TypeDeposit)
	if len(pending) == 0 {
		return t, true, nil
	}
	at := s.stamp()
	plan := make([]string, len(pending))
	for i, r := range pending {
		kind := "told"
		if r.Awaitable {
			kind = "awaited"
		}
		plan[i] = fmt.Sprintf("%s (priority %d, %s)", r.URL, r.Priority, kind)
	}
	entry := LogEntry{TransactionID: t.ID, At: at, Stage: StageInitialization, Level: LevelInfo, SourceContext: validationSource,
		Message: fmt.Sprintf("%d validation endpoint(s) of %s to ask before the provider: %s.", len(pending), c.Name(), strings.Join(plan, "; "))}
	rs, err := vs.CreateResults(ctx, t.ID, pending, at, []LogEntry{entry})
	if err != nil {
		return Transaction{}, false, fmt.Errorf("validation results of transaction %d: %w", t.ID, err)
	}
	return s.runValidations(ctx, t, rs)
}

// resumeValidation continues the validation of a transaction the recovery
// sweep took: results not yet asked are asked, a recorded veto fails it. A
// transaction without results is validated as a new one.
func (s *Service) resumeValidation(ctx context.Context, t Transaction, c Collab) (Transaction, bool, error) {
	if !s.validationOn() {
		return t, true, nil
	}
	rs, err := s.opts.Validation.Store.Results(ctx, t.ID)
	if err != nil {
		return Transaction{}, false, fmt.Errorf("validation results of transaction %d: %w", t.ID, err)
	}
	if len(rs) == 0 {
		return s.validateNew(ctx, t, c)
	}
	return s.runValidations(ctx, t, rs)
}

func validatesDirection(c Collab, typ Type) bool {
	if typ == TypeDeposit {
		return c.ValidateDeposits
	}
	return c.ValidateWithdrawals
}

// runValidations asks the awaitable results still pending, in order, and
// stops at the first failure, which makes the transaction Validation
// Failed. The others still pending are then asked in the background, without
// holding the payment.
func (s *Service) runValidations(ctx context.Context, t Transaction, rs []validation.Result) (Transaction, bool, error) {
	var told []validation.Result
	for _, r := range rs {
		if !r.Awaitable {
			if r.Status == validation.StatusPending {
				told = append(told, r)
			}
			continue
		}
		if r.Status == validation.StatusPending {
			var err error
			if r, err = s.ask(ctx, t, r, nil); err != nil {
				return Transaction{}, false, err
			}
		}
		if r.Status == validation.StatusFailed {
			after, err := s.failValidation(ctx, t, r)
			return after, false, err
		}
	}
	if len(told) > 0 {
		s.tell(ctx, t, told)
	}
	return t, true, nil
}

// tell asks results that are not awaited, one after the other, in a
// goroutine of its own: each call has its own timeout and a context
// detached from the request's, and the answers never fail the transaction.
// Wait waits for these goroutines.
func (s *Service) tell(ctx context.Context, t Transaction, rs []validation.Result) {
	detached := context.WithoutCancel(ctx)
	s.background.Go(func() {
		for _, r := range rs {
			if _, err := s.ask(detached, t, r, nil); err != nil {
				s.opts.Logger.WarnContext(detached, "validation not awaited", "transaction_id", t.ID, "validation_id", r.ID, "error", err)
			}
		}
	})
}

// Wait blocks until the validation calls running in the background (those
// not awaited) have finished; each is bounded by the validation timeout.
func (s *Service) Wait() { s.background.Wait() }

// failValidation makes the transaction Validation Failed for result r's veto
// through the normal status change (its event lets the callbacks follow). A
// transaction whose status moved meanwhile (an operator) is left as it is.
func (s *Service) failValidation(ctx context.Context, t Transaction, r validation.Result) (Transaction, error) {
	msg := fmt.Sprintf("Validation %s by %s failed: %s", r.Label(), r.URL, r.Message)
	after, err := s.change(ctx, t, SourceValidation, StatusChange{To: StatusValidationFail, Message: msg, ErrorMessage: msg})
	if apperr.KindOf(err) == apperr.KindConflict {
		return s.store.Transaction(ctx, t.ID)
	}
	return after, err
}

// subject describes t to validation endpoints.
func subject(t Transaction) validation.Subject {
	return validation.Subject{
		TransactionID: t.ID, ReferenceID: t.ReferenceID, MerchantClientID: t.MerchantClientID, Nonce: t.Nonce,
		Amount: t.Amount.String(), Currency: t.Currency, Type: int16(t.Type), CollabID: t.CollabID,
		MerchantID: t.MerchantID, PayTypeID: t.PayTypeID, AccountData: t.AccountData,
	}
}

// signValidation returns the Standard Webhooks headers of result r's
// request body under the merchant's key: webhook-id "vr_<result>_<attempt>"
// (never a number, so that the signed text cannot pass for the "<ts>.<body>"
// of a merchant's own signed call), webhook-timestamp and
// webhook-signature. None when the merchant has no key or nothing signs.
func (s *Service) signValidation(ctx context.Context, merchantID int32, r validation.Result, body []byte) (map[string]string, error) {
	keyOf := s.opts.Validation.MerchantKey
	if keyOf == nil {
		return nil, nil
	}
	key, err := keyOf(ctx, merchantID)
	if apperr.KindOf(err) == apperr.KindNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("signing key of merchant %d: %w", merchantID, err)
	}
	id, ts := fmt.Sprintf("vr_%d_%d", r.ID, r.Attempts+1), s.now().Unix()
	return map[string]string{
		stdwebhooks.HeaderID: id, stdwebhooks.HeaderTimestamp: strconv.FormatInt(ts, 10),
		stdwebhooks.HeaderSignature: stdwebhooks.Sign(key, id, ts, body),
	}, nil
}

// ask posts result r's request to its URL and records the answer with its
// API Request and API Response journal entries. An operator (retry) asks
// again whatever the status; otherwise an answer does not replace a status
// an operator set while the endpoint was asked. A ctx that ends during the
// call records nothing and returns its error.
func (s *Service) ask(ctx context.Context, t Transaction, r validation.Result, op *Operator) (validation.Result, error) {
	v := s.opts.Validation
	body := validation.RequestBody(r.ID, subject(t))
	raw, err := json.Marshal(body)
	if err != nil {
		return validation.Result{}, fmt.Errorf("encode validation request %d: %w", r.ID, err)
	}
	headers, err := s.signValidation(ctx, t.MerchantID, r, raw)
	if err != nil {
		return validation.Result{}, err
	}
	cctx, cancel := context.WithTimeout(ctx, v.Timeout)
	ex := v.Caller.Call(cctx, r.URL, raw, headers)
	cancel()
	if ctx.Err() != nil {
		return validation.Result{}, ctx.Err()
	}
	status, msg := validation.Verdict(ex, v.Timeout)

	who := ""
	request := fmt.Sprintf("Validation %s (priority %d): POST %s", r.Label(), r.Priority, r.URL)
	if op != nil {
		who = fmt.Sprintf("user %d (%s) from %s", op.UserID, op.Username, op.IP)
		request = fmt.Sprintf("Validation %s asked again by %s: POST %s", r.Label(), op.Username, r.URL)
	}
	req := LogEntry{TransactionID: t.ID, Stage: StageAPIRequest, Level: LevelInfo, SourceContext: validationSource,
		Message: request, Content: Mask(jsonShape(body)), Headers: MaskHeaders(ex.RequestHeaders), AuthData: who}
	resp := LogEntry{TransactionID: t.ID, Stage: StageAPIResponse, Level: LevelInfo, SourceContext: validationSource,
		Content: Mask(responseShape(ex.ResponseBody)),
		Message: fmt.Sprintf("Validation %s answered HTTP %d in %s; %s: %s", r.Label(), ex.StatusCode, ex.Elapsed.Round(time.Millisecond), status, msg)}
	if status == validation.StatusFailed {
		resp.Level = LevelWarning
	}
	if ex.Err != nil {
		typ := "ValidationError"
		if ex.Timeout {
			typ = "Timeout"
		}
		resp.Level = LevelError
		resp.Message = fmt.Sprintf("Validation %s did not answer (%s): %s", r.Label(), ex.Elapsed.Round(time.Millisecond), msg)
		// The journal, like the result, gets the sentence: the client's own
		// text (it can name the resolver's or other internal addresses) goes
		// to the log only.
		resp.Exception = &LogException{Type: typ, Message: msg}
		s.opts.Logger.WarnContext(ctx, "validation endpoint gave no usable answer", "transaction_id", t.ID,
			"validation_id", r.ID, "attempt", r.Attempts+1, "error", ex.Err)
	}
	at := s.stamp()
	req.At, resp.At = at, at
	return v.Store.RecordAnswer(ctx, Answer{ResultID: r.ID, TransactionID: t.ID, Status: status,
		ResponseCode: int32(ex.StatusCode), Message: msg, At: at, OnlyPending: op == nil, Logs: []LogEntry{req, resp}})
}

// jsonShape turns a request body into the map shapes Mask walks.
func jsonShape(body map[string]any) any {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

// responseShape is an answer's body for the journal: its JSON, or its text.
func responseShape(body []byte) any {
	if len(body) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(body, &v) == nil {
		return v
	}
	return string(body)
}

// checkValidations refuses the transaction queue while a validation of t is
// not Success.
func (s *Service) checkValidations(ctx context.Context, t Transaction) error {
	if !s.validationOn() {
		return nil
	}
	rs, err := s.opts.Validation.Store.Results(ctx, t.ID)
	if err != nil {
		return fmt.Errorf("validation results of transaction %d: %w", t.ID, err)
	}
	for _, r := range rs {
		if r.Status != validation.StatusSuccess {
			return apperr.FailedPrecondition("Transaction %d cannot be restarted: its validation %s (%s) is %s. Every validation must be Success first: retry it or set its status.",
				t.ID, r.Label(), r.URL, r.Status)
		}
	}
	return nil
}

// ValidationResults returns a transaction's validation results in the order
// they are asked. A transaction outside scope, or unknown, is not found.
func (s *Service) ValidationResults(ctx context.Context, scope merchant.Scope, transactionID int64) ([]validation.Result, error) {
	if _, err := s.Get(ctx, scope, transactionID); err != nil {
		return nil, err
	}
	if !s.validationOn() {
		return []validation.Result{}, nil
	}
	rs, err := s.opts.Validation.Store.Results(ctx, transactionID)
	if err != nil {
		return nil, fmt.Errorf("validation results of transaction %d: %w", transactionID, err)
	}
	return rs, nil
}

// scopedResult returns a result whose transaction is within scope (not
// found otherwise) with that transaction.
func (s *Service) scopedResult(ctx context.Context, scope merchant.Scope, id int64) (validation.Result, Transaction, error) {
	if !s.validationOn() || id <= 0 {
		return validation.Result{}, Transaction{}, apperr.NotFound(msgResultNotFound)
	}
	r, err := s.opts.Validation.Store.Result(ctx, id)
	if err != nil {
		if apperr.KindOf(err) == apperr.KindNotFound {
			return validation.Result{}, Transaction{}, apperr.New(apperr.KindNotFound, err, msgResultNotFound)
		}
		return validation.Result{}, Transaction{}, fmt.Errorf("validation result %d: %w", id, err)
	}
	t, err := s.Get(ctx, scope, r.TransactionID)
	if apperr.KindOf(err) == apperr.KindNotFound {
		return validation.Result{}, Transaction{}, apperr.New(apperr.KindNotFound, err, msgResultNotFound)
	}
	return r, t, err
}

// SetValidationStatus sets a validation result's status by hand (1 success,
// 0 pending, -1 failed; anything else is invalid) and journals it as a UI
// Update entry. The transaction's status stays: the transaction queue
// (Restart) reads the results. A result of a transaction outside the
// operator's scope, or unknown, is not found; setting the status it has
// changes nothing.
func (s *Service) SetValidationStatus(ctx context.Context, op Operator, id int64, status validation.Status) (validation.Result, error) {
	if _, err := validation.ParseStatus(int32(status)); err != nil {
		return validation.Result{}, err
	}
	r, t, err := s.scopedResult(ctx, op.Scope, id)
	if err != nil {
		return validation.Result{}, err
	}
	if r.Status == status {
		return r, nil
	}
	msg := fmt.Sprintf("Validation %s (%s) set from %s to %s by %s.", r.Label(), r.URL, r.Status, status, op.Username)
	at := s.stamp()
	entry := withTx(operatorEntry(op, "payment.SetValidationStatus", msg,
		map[string]any{"validationId": r.ID, "status": int(status), "previousStatus": int(r.Status)}), t.ID, at)
	return s.opts.Validation.Store.SetResultStatus(ctx, r.ID, status, at, []LogEntry{entry})
}

// RetryValidation asks a result's endpoint (its URL as first asked) again
// now and records the answer (attempts + 1), journaled with the operator.
// The transaction's status stays. A result of a transaction outside the
// operator's scope, or unknown, is not found.
func (s *Service) RetryValidation(ctx context.Context, op Operator, id int64) (validation.Result, error) {
	r, t, err := s.scopedResult(ctx, op.Scope, id)
	if err != nil {
		return validation.Result{}, err
	}
	return s.ask(ctx, t, r, &op)
}
