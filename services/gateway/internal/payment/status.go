package payment

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/apperr"
)

// responseLog journals a provider's answer (or its absence).
func responseLog(stage Stage, ex Exchange, source string) LogEntry {
	e := LogEntry{Stage: stage, Level: LevelInfo, SourceContext: source, Content: Mask(ex.ResponseBody),
		Message: fmt.Sprintf("%s %s answered %d: %s", ex.Method, ex.URL, ex.StatusCode, ex.Outcome)}
	if ex.Err != nil {
		e.Level = LevelError
		e.Message = fmt.Sprintf("%s %s failed: %s", ex.Method, ex.URL, ex.failure())
		typ := "ProviderError"
		if ex.Network {
			typ = "NetworkError"
		}
		e.Exception = &LogException{Type: typ, Message: ex.failure()}
	}
	return e
}

// logProviderFailure logs the client's own error of a failed provider call
// with the transaction: the journal and the transaction show ex.Failure.
func (s *Service) logProviderFailure(ctx context.Context, t Transaction, ex Exchange, source string) {
	if ex.Err != nil {
		s.opts.Logger.WarnContext(ctx, "provider call failed", "transaction_id", t.ID, "source", source,
			"method", ex.Method, "status_code", ex.StatusCode, "error", ex.Err)
	}
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
		ch.To, ch.Message, ch.ErrorMessage = StatusNetworkError, "The provider could not be reached.", ex.failure()
	case ex.Err != nil:
		ch.To, ch.Message, ch.ErrorMessage = StatusPSPGeneric, "The provider answered with an error.", ex.failure()
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

// state is t as its events carry it, with its version (1 when made, one
// more at every status change) and the merchant's and provider's names as
// the transaction recorded them.
func state(t Transaction) *eventsv1.TransactionState {
	return &eventsv1.TransactionState{
		TransactionId: t.ID, ReferenceId: t.ReferenceID, MerchantId: t.MerchantID, CollabId: t.CollabID,
		ProviderId: t.ProviderID, Nonce: t.Nonce, TransactionType: int32(t.Type), Amount: t.Amount.String(),
		Currency: t.Currency, Status: int32(t.Status), StatusMessage: t.StatusMessage,
		ProviderTransactionId: t.ProviderTID, UpdatedAt: timestamppb.New(t.UpdatedAt),
		CallbackSendingCanceled: t.CallbacksCanceled, MerchantClientId: t.MerchantClientID,
		DestinationAmount: t.DestinationAmount.String(), DestinationCurrency: t.DestinationCurrency,
		ErrorMessage: t.ErrorMessage, CreatedAt: timestamppb.New(t.CreatedAt),
		Version: t.Version, MerchantName: t.MerchantName, ProviderName: t.ProviderName,
	}
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

// State is t as its events carry it (the replay of transactions streams
// it).
func State(t Transaction) *eventsv1.TransactionState { return state(t) }
