package payment

import (
	"context"
	"fmt"
	"slices"

	"go.opentelemetry.io/otel/attribute"

	"github.com/paygate/paygate/services/internal/apperr"
)

// Recovery is a transaction the recovery sweep claimed, with the number of
// this attempt (1-based).
type Recovery struct {
	Transaction Transaction
	Attempt     int32
}

// RecoverOnce resolves transactions left at Not Confirmed for longer than
// Options.RecoverAfter — a process died between creating the row and
// recording the provider's answer — and returns how many it took. Each is
// claimed (and its attempt counted and journaled) before the provider is
// called, so at most Options.MaxRecoveryAttempts sweeps ever touch it, even
// if the process keeps dying. A transaction that already holds a provider id
// of a polling provider is polled; otherwise the payment is submitted again
// under the same reference, which the provider treats idempotently, after
// its validation is finished (results not yet asked are asked; a recorded
// veto makes it Validation Failed).
func (s *Service) RecoverOnce(ctx context.Context) (SweepReport, error) {
	rs, err := s.store.ClaimRecoveries(ctx, s.stamp().Add(-s.opts.RecoverAfter), 50, s.opts.MaxRecoveryAttempts,
		func(t Transaction, attempt int32) LogEntry {
			return LogEntry{At: s.stamp(), Stage: StageInitialization, Level: LevelWarning, SourceContext: "payment.recover",
				Message: fmt.Sprintf("Recovery attempt %d of %d: the transaction was still %s %s after its last change; %s.",
					attempt, s.opts.MaxRecoveryAttempts, StatusNotConfirmed, s.opts.RecoverAfter, recoveryPlan(t)),
				Content: map[string]any{"attempt": attempt, "maxAttempts": s.opts.MaxRecoveryAttempts,
					"providerTransactionId": t.ProviderTID}}
		})
	if err != nil {
		return SweepReport{}, fmt.Errorf("claim recoveries: %w", err)
	}
	rep := SweepReport{Claimed: len(rs)}
	for _, r := range rs {
		tctx, span := s.startBackground(ctx, "recover transaction", r.Transaction)
		span.SetAttributes(attribute.Int("paygate.recovery.attempt", int(r.Attempt)))
		err := s.recover(tctx, r)
		endBackground(span, err)
		if err != nil && ctx.Err() == nil {
			s.opts.Logger.WarnContext(tctx, "recover transaction", "transaction_id", r.Transaction.ID, "error", err)
			rep.Failed++
			rep.LastError = err
		}
	}
	return rep, nil
}

func recoveryPlan(t Transaction) string {
	if t.ProviderTID != "" {
		return "asking the provider for its status"
	}
	return "submitting it to the provider again under the same reference"
}

func (s *Service) recover(ctx context.Context, r Recovery) error {
	t := r.Transaction
	conn, err := s.store.Connection(ctx, t.ProviderID)
	if err != nil {
		return s.recoveryStuck(ctx, t, fmt.Sprintf("the provider %s has no API address configured", t.ProviderName), err)
	}
	if t.ProviderTID != "" && conn.SupportsPolling {
		return s.recoverByPolling(ctx, t, conn)
	}
	c, err := s.store.MerchantCollab(ctx, t.MerchantID, t.ProviderID)
	if err != nil {
		return s.recoveryStuck(ctx, t, "the merchant no longer has a collaboration with the provider", err)
	}
	i := slices.IndexFunc(c.PayTypes, func(pt CollabPayType) bool { return pt.PayTypeID == t.PayTypeID })
	if i < 0 {
		return s.recoveryStuck(ctx, t, fmt.Sprintf("the pay type %s is no longer on the collaboration", t.PayTypeName), nil)
	}
	if t.ProviderTID == "" {
		// A crash may have come mid-validation: finish it before the
		// provider (which has not answered yet).
		var proceed bool
		if t, proceed, err = s.resumeValidation(ctx, t, c); err != nil || !proceed {
			return err
		}
	}
	_, err = s.submit(ctx, t, c, conn, c.PayTypes[i], InitRequest{AdditionalData: t.AccountData})
	if apperr.KindOf(err) == apperr.KindConflict {
		return nil // the original call, a webhook or an operator got there first
	}
	return err
}

// recoverByPolling asks the provider for a payment whose id is known: a final
// answer settles it, pending (or no answer) hands it to the poller.
func (s *Service) recoverByPolling(ctx context.Context, t Transaction, conn Connection) error {
	ex := s.providers.PaymentStatus(ctx, s.withCredentials(ctx, conn, t.CollabID), t.ProviderTID)
	s.logProviderFailure(ctx, t, ex, "payment.recover")
	entry := responseLog(StagePolling, ex, "payment.recover")
	entry.Message = "Recovery poll: " + entry.Message
	var ch StatusChange
	if ex.Err != nil {
		entry.Level = LevelWarning
		next := s.stamp().Add(s.opts.PollInterval)
		ch = StatusChange{To: StatusPending, NextPollAt: &next,
			Message: "The provider did not answer the recovery poll; the transaction is polled again."}
	} else {
		ch = s.outcomeChange(t, conn, ex, "payment.recover")
		ch.ProviderTID = ""
	}
	ch.Logs = []LogEntry{entry}
	_, err := s.change(ctx, t, SourcePolling, ch)
	if apperr.KindOf(err) == apperr.KindConflict {
		return nil
	}
	return err
}

// recoveryStuck journals why a stranded transaction cannot be recovered
// automatically; an operator decides (restart or a status override).
func (s *Service) recoveryStuck(ctx context.Context, t Transaction, why string, cause error) error {
	e := LogEntry{Stage: StageInitialization, Level: LevelError, SourceContext: "payment.recover",
		Message: fmt.Sprintf("Recovery cannot resolve the transaction: %s. An operator must restart it or set its status.", why)}
	if cause != nil {
		e.Exception = &LogException{Type: "RecoveryError", Message: cause.Error()}
	}
	return s.store.AppendLogs(ctx, withTx(e, t.ID, s.stamp()))
}
