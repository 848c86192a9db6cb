package payment

import (
	"context"
	"fmt"
	"strconv"

	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/internal/apperr"
)

// operatorEntry is the UI Update journal entry of an operator's action.
func operatorEntry(op Operator, source, msg string, content map[string]any) LogEntry {
	if content == nil {
		content = map[string]any{}
	}
	content["userAgent"] = op.UserAgent
	return LogEntry{Stage: StageUIUpdate, Level: LevelInfo, SourceContext: source, Message: msg,
		AuthData: fmt.Sprintf("user %d (%s) from %s", op.UserID, op.Username, op.IP), Content: content}
}

// sameStatusEvent is the event of an operator's change that keeps the
// status (callbacks cancelled, polling queued): TransactionUpdated, or
// TransactionFinalized for a final transaction, with the status unchanged.
func sameStatusEvent(after Transaction) []proto.Message {
	if after.Status.Final() {
		return []proto.Message{&eventsv1.TransactionFinalized{Transaction: state(after), PreviousStatus: int32(after.Status), Source: SourceOperator}}
	}
	return []proto.Message{&eventsv1.TransactionUpdated{Transaction: state(after), PreviousStatus: int32(after.Status), Source: SourceOperator}}
}

// OperatorLogEntry is the journal entry of an operator's change of a
// transaction made outside this package (a fraud review stopping its
// callbacks); TransactionID and At are the caller's to set.
func OperatorLogEntry(op Operator, source, msg string, content map[string]any) LogEntry {
	return operatorEntry(op, source, msg, content)
}

// SameStatusEvents are the events of an operator's change that keeps the
// status, for changes written outside this package (a fraud review stopping
// a transaction's callbacks): the callbacks service learns from them.
func SameStatusEvents(after Transaction) []proto.Message { return sameStatusEvent(after) }

// seenOf loads a transaction within scope and checks the operator saw its
// current status (a conflict otherwise).
func (s *Service) seenOf(ctx context.Context, op Operator, id int64, seen Status) (Transaction, error) {
	t, err := s.Get(ctx, op.Scope, id)
	if err != nil {
		return Transaction{}, err
	}
	if t.Status != seen {
		return Transaction{}, staleConflict(id, t.Status)
	}
	return t, nil
}

// restale turns a store conflict into the stale-status conflict naming the
// status now.
func (s *Service) restale(ctx context.Context, id int64, err error) error {
	if apperr.KindOf(err) == apperr.KindConflict {
		if cur, err2 := s.store.Transaction(ctx, id); err2 == nil {
			return staleConflict(id, cur.Status)
		}
	}
	return err
}

// Cancel is the manual cancel of spec 02 §4: the transaction becomes
// Cancelled (-1) and its callbacks stop, when its status is still seen
// (a conflict otherwise, nothing written). Cancelling a cancelled
// transaction only stops its callbacks.
func (s *Service) Cancel(ctx context.Context, op Operator, id int64, seen Status) (Transaction, error) {
	t, err := s.seenOf(ctx, op, id, seen)
	if err != nil {
		return Transaction{}, err
	}
	if t.Status == StatusCancelled {
		return s.CancelCallbacks(ctx, op, id, seen)
	}
	msg := fmt.Sprintf("Transaction cancelled by %s; callbacks stopped.", op.Username)
	after, err := s.change(ctx, t, SourceOperator, StatusChange{
		To: StatusCancelled, Message: msg, ErrorMessage: msg, CancelCallbacks: true,
		Logs: []LogEntry{operatorEntry(op, "payment.Cancel", msg, map[string]any{"transactionStatus": int(seen)})},
	})
	if err != nil {
		return Transaction{}, s.restale(ctx, id, err)
	}
	return after, nil
}

// CancelCallbacks stops sending a transaction's callbacks when its status is
// still seen (a conflict otherwise, nothing written). The status stays.
func (s *Service) CancelCallbacks(ctx context.Context, op Operator, id int64, seen Status) (Transaction, error) {
	t, err := s.seenOf(ctx, op, id, seen)
	if err != nil {
		return Transaction{}, err
	}
	msg := fmt.Sprintf("Callback sending cancelled by %s.", op.Username)
	at := s.stamp()
	entry := withTx(operatorEntry(op, "payment.CancelCallbacks", msg, map[string]any{"transactionStatus": int(seen)}), t.ID, at)
	after, err := s.store.CancelCallbacks(ctx, t.ID, seen, at, []LogEntry{entry}, sameStatusEvent)
	if err != nil {
		return Transaction{}, s.restale(ctx, id, err)
	}
	return after, nil
}

// notFinal refuses an action on a final transaction.
func notFinal(t Transaction, action string) error {
	if t.Status.Final() {
		return apperr.FailedPrecondition("Transaction %d is final (%s): only a transaction that is not final can be %s.", t.ID, t.Status, action)
	}
	return nil
}

// Restart is the transaction queue of spec 02 §4: a transaction that is not
// final, and whose every validation result is Success, starts again from the
// beginning — back to Not Confirmed, then the provider (or the collab's mode)
// as on initialize, without asking the validation endpoints again — and the
// call answers once the provider has. Refused (failed precondition) for a
// final transaction, while a validation result is Pending or Failed (an
// operator retries or sets it first), during maintenance, and when the
// collab can no longer take it.
func (s *Service) Restart(ctx context.Context, op Operator, id int64) (Transaction, error) {
	t, err := s.Get(ctx, op.Scope, id)
	if err != nil {
		return Transaction{}, err
	}
	if err := notFinal(t, "restarted"); err != nil {
		return Transaction{}, err
	}
	if err := s.checkValidations(ctx, t); err != nil {
		return Transaction{}, err
	}
	if err := s.accepting(ctx); err != nil {
		return Transaction{}, err
	}
	c, err := s.store.MerchantCollab(ctx, t.MerchantID, t.ProviderID)
	if err != nil {
		if apperr.KindOf(err) == apperr.KindNotFound {
			return Transaction{}, apperr.New(apperr.KindFailedPrecondition, err, "The merchant no longer has a collaboration with provider %d.", t.ProviderID)
		}
		return Transaction{}, fmt.Errorf("collab of transaction %d: %w", id, err)
	}
	pt, err := checkCollab(c, t.Type, strconv.Itoa(int(t.PayTypeID)), t.Amount)
	if err != nil {
		return Transaction{}, err
	}
	conn, err := s.connection(ctx, t.ProviderID, t.ProviderName)
	if err != nil {
		return Transaction{}, err
	}
	msg := fmt.Sprintf("Transaction restarted from the beginning by %s.", op.Username)
	t, err = s.change(ctx, t, SourceOperator, StatusChange{To: StatusNotConfirmed, Message: msg,
		Logs: []LogEntry{operatorEntry(op, "payment.Restart", msg, map[string]any{"transactionStatus": int(t.Status)})}})
	if err != nil {
		return Transaction{}, s.restale(ctx, id, err)
	}
	return s.submit(ctx, t, c, conn, pt, InitRequest{AdditionalData: t.AccountData})
}

// EnqueuePolling is the polling queue of spec 02 §4: a transaction that is
// not final, of a provider that supports polling and already holding the
// provider's id, is polled at the poller's next tick (its attempts count
// from zero again). Refused (failed precondition) otherwise.
func (s *Service) EnqueuePolling(ctx context.Context, op Operator, id int64) (Transaction, error) {
	t, err := s.Get(ctx, op.Scope, id)
	if err != nil {
		return Transaction{}, err
	}
	if err := notFinal(t, "polled"); err != nil {
		return Transaction{}, err
	}
	conn, err := s.connection(ctx, t.ProviderID, t.ProviderName)
	if err != nil {
		return Transaction{}, err
	}
	if !conn.SupportsPolling {
		return Transaction{}, apperr.FailedPrecondition("The provider %s does not support polling.", t.ProviderName)
	}
	if t.ProviderTID == "" {
		return Transaction{}, apperr.FailedPrecondition("Transaction %d has no provider transaction id yet, so it cannot be polled; restart it instead.", t.ID)
	}
	msg := fmt.Sprintf("Polling queued by %s.", op.Username)
	at := s.stamp()
	entry := withTx(operatorEntry(op, "payment.EnqueuePolling", msg, map[string]any{"transactionStatus": int(t.Status)}), t.ID, at)
	entry.Stage = StagePolling
	after, err := s.store.SchedulePoll(ctx, t.ID, t.Status, at, []LogEntry{entry}, sameStatusEvent)
	if err != nil {
		return Transaction{}, s.restale(ctx, id, err)
	}
	return after, nil
}
