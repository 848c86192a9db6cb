package payment

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/paygate/paygate/services/internal/apperr"
)

// backoff is the delay before poll attempt n (1-based).
func (s *Service) backoff(n int32) time.Duration {
	d := s.opts.PollInterval
	for i := int32(1); i < n && d < s.opts.MaxPollInterval; i++ {
		d *= 2
	}
	return min(d, s.opts.MaxPollInterval)
}

// SweepReport counts what a pass of the poller or of the recovery sweep
// did.
type SweepReport struct {
	// Claimed is the number of transactions taken.
	Claimed int
	// Final is how many of them reached a final status.
	Final int
	// Failed is how many could not be handled (each is logged, and tried
	// again later); LastError is the last such error.
	Failed    int
	LastError error
}

// Add adds o's counts to r.
func (r *SweepReport) Add(o SweepReport) {
	r.Claimed += o.Claimed
	r.Final += o.Final
	r.Failed += o.Failed
	if o.LastError != nil {
		r.LastError = o.LastError
	}
}

// PollOnce polls up to 50 transactions due now.
func (s *Service) PollOnce(ctx context.Context) (SweepReport, error) {
	ts, err := s.store.ClaimPolls(ctx, s.stamp(), 50, s.backoff, s.opts.MaxPollAttempts)
	if err != nil {
		return SweepReport{}, fmt.Errorf("claim polls: %w", err)
	}
	rep := SweepReport{Claimed: len(ts)}
	for _, t := range ts {
		tctx, span := s.startBackground(ctx, "poll transaction", t)
		final, err := s.poll(tctx, t)
		span.SetAttributes(attribute.Int("paygate.poll.attempt", int(t.PollAttempts)), attribute.Bool("paygate.transaction.final", final))
		endBackground(span, err)
		if err != nil && ctx.Err() == nil {
			s.opts.Logger.WarnContext(tctx, "poll transaction", "transaction_id", t.ID, "error", err)
			rep.Failed++
			rep.LastError = err
		}
		if final {
			rep.Final++
		}
	}
	return rep, nil
}

// startBackground starts the span of one transaction a background job
// handles (a poll, a recovery): the root of a trace of its own, so that the
// events it writes (a final status, and the callbacks that follow) carry a
// trace per transaction, linked to the span in ctx (a job run's) when there
// is one.
func (s *Service) startBackground(ctx context.Context, name string, t Transaction) (context.Context, trace.Span) {
	opts := []trace.SpanStartOption{trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attribute.Int64("paygate.transaction_id", t.ID), attribute.Int("paygate.transaction.status", int(t.Status)))}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: sc}))
	}
	return s.tracer.Start(ctx, name, opts...)
}

// endBackground ends a span of startBackground, failed when err is not nil.
func endBackground(span trace.Span, err error) {
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// PollDue polls every transaction due now, 50 at a time, and reports what
// it did; it stops at the first error claiming them.
func (s *Service) PollDue(ctx context.Context) (SweepReport, error) {
	return sweep(ctx, s.PollOnce)
}

// RecoverDue resolves every transaction stranded at Not Confirmed
// (RecoverOnce), 50 at a time, and reports what it did; it stops at the
// first error claiming them.
func (s *Service) RecoverDue(ctx context.Context) (SweepReport, error) {
	return sweep(ctx, s.RecoverOnce)
}

func sweep(ctx context.Context, once func(context.Context) (SweepReport, error)) (SweepReport, error) {
	var total SweepReport
	for ctx.Err() == nil {
		rep, err := once(ctx)
		total.Add(rep)
		if err != nil || rep.Claimed == 0 {
			return total, err
		}
	}
	return total, nil
}

// poll asks the provider for the status of t and records the answer; it
// reports whether t reached a final status.
func (s *Service) poll(ctx context.Context, t Transaction) (bool, error) {
	conn, err := s.store.Connection(ctx, t.ProviderID)
	if err != nil {
		return false, err
	}
	ex := s.askStatus(ctx, conn, t)
	s.logProviderFailure(ctx, t, ex, "payment.poll")
	entry := responseLog(StagePolling, ex, "payment.poll")
	entry.Message = fmt.Sprintf("Poll %d: %s", t.PollAttempts, entry.Message)
	if ex.Err != nil || ex.Outcome == OutcomePending {
		// Try again at the next poll (ClaimPolls already moved it).
		if ex.Err != nil {
			entry.Level = LevelWarning
		}
		return false, s.store.AppendLogs(ctx, withTx(entry, t.ID, s.stamp()))
	}
	ch := s.outcomeChange(t, conn, ex, "payment.poll")
	ch.ProviderTID = ""
	ch.Logs = []LogEntry{entry}
	changed, err := s.change(ctx, t, SourcePolling, ch)
	if apperr.KindOf(err) == apperr.KindConflict {
		return false, nil // a webhook or an operator got there first
	}
	return err == nil && changed.Status.Final(), err
}
