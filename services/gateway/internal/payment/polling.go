package payment

import (
	"context"
	"fmt"
	"time"

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
