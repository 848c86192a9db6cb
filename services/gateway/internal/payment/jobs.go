package payment

import (
	"context"
	"time"

	"github.com/paygate/paygate/services/internal/jobs/job"
)

// PollingJob asks providers for the status of pending transactions due for a
// poll, every pollEvery (the PollingIntervalSeconds setting, read on every
// tick; PAYGATE_POLL_INTERVAL by default). The recovery sweep ran in the
// poller's loop before it was a job; the two are separate jobs now, both
// continuous.
func PollingJob(s *Service, pollEvery func(context.Context) time.Duration) job.Job {
	return job.Job{
		Name:        "gateway.provider-polling",
		Description: "Asks providers for the status of pending transactions due for a poll (each waits longer after every attempt), looking every PollingIntervalSeconds (setting; PAYGATE_POLL_INTERVAL by default).",
		Continuous:  true,
		Run: func(ctx context.Context, run *job.Run) error {
			total := sweepLoop(ctx, run, pollEvery, s.PollDue, "Polling could not claim the transactions due")
			if total.Claimed > 0 {
				run.Notifyf(job.LevelInformation, "Polled %d pending transactions; %d became final.", total.Claimed, total.Final)
			}
			if total.Failed > 0 {
				run.NotifyErr(job.LevelError, total.LastError, "%d polls could not be recorded and are tried again later.", total.Failed)
			}
			return nil
		},
	}
}

// RecoveryJob resolves transactions left Not Confirmed longer than
// PAYGATE_RECOVERY_AFTER, every pollEvery.
func RecoveryJob(s *Service, pollEvery func(context.Context) time.Duration) job.Job {
	return job.Job{
		Name:        "gateway.recovery-sweep",
		Description: "Resolves transactions left Not Confirmed longer than PAYGATE_RECOVERY_AFTER (a process died mid-call) by polling or resubmitting them, looking every PollingIntervalSeconds (setting; PAYGATE_POLL_INTERVAL by default).",
		Continuous:  true,
		Run: func(ctx context.Context, run *job.Run) error {
			total := sweepLoop(ctx, run, pollEvery, s.RecoverDue, "The recovery sweep could not claim the stranded transactions")
			if total.Claimed > 0 {
				run.Notifyf(job.LevelWarning, "Took %d transactions stranded at Not Confirmed for recovery.", total.Claimed)
			}
			if total.Failed > 0 {
				run.NotifyErr(job.LevelError, total.LastError, "%d recoveries failed and are tried again later.", total.Failed)
			}
			return nil
		},
	}
}

// TotalsFoldJob folds the transaction list's count and totals deltas into
// their rollups with fold (one pass, answering how many deltas it moved),
// every every.
func TotalsFoldJob(fold func(context.Context) (int64, error), every time.Duration) job.Job {
	return job.Job{
		Name:        "gateway.totals-fold",
		Description: "Folds the transaction list's count and totals deltas into their hourly and daily rollups every PAYGATE_TOTALS_FOLD_INTERVAL, building the rollups first on a table that predates them.",
		Continuous:  true,
		Run: func(ctx context.Context, run *job.Run) error {
			var moved, failed int64
			var lastErr error
			for {
				n, err := fold(ctx)
				moved += n
				if err != nil && ctx.Err() == nil {
					failed++
					lastErr = err
				}
				if !run.Wait(every) {
					break
				}
			}
			if moved > 0 {
				run.Notifyf(job.LevelInformation, "Folded %d deltas into the transaction list's totals.", moved)
			}
			if failed > 0 {
				run.NotifyErr(job.LevelError, lastErr, "%d folds failed; the deltas wait and the list stays exact.", failed)
			}
			return nil
		},
	}
}

// sweepLoop runs sweep every interval (asked again after every pass) until
// the run ends and returns the sum of its reports; a pass that could not
// claim its transactions is notified at once.
func sweepLoop(ctx context.Context, run *job.Run, interval func(context.Context) time.Duration,
	sweep func(context.Context) (SweepReport, error), failure string) SweepReport {
	var total SweepReport
	for {
		rep, err := sweep(ctx)
		total.Add(rep)
		if err != nil && ctx.Err() == nil {
			run.NotifyErr(job.LevelError, err, "%s; the next pass tries again.", failure)
		}
		if !nextTick(ctx, time.Now(), interval, run.Wait) {
			return total
		}
	}
}

// maxTickWait is the longest nextTick waits before asking the interval
// again.
const maxTickWait = time.Second

// nextTick waits until interval has passed since began (the end of a
// pass), asking interval again at least every maxTickWait, so that a shorter
// interval set meanwhile (PollingIntervalSeconds down from 300 to 1, say)
// takes effect within a second rather than after the old one. It reports
// false as soon as wait does (the run ends).
func nextTick(ctx context.Context, began time.Time, interval func(context.Context) time.Duration,
	wait func(time.Duration) bool) bool {
	for {
		left := time.Until(began.Add(interval(ctx)))
		if left <= 0 {
			return true
		}
		if !wait(min(left, maxTickWait)) {
			return false
		}
	}
}
