package fraud

import (
	"context"
	"time"

	"github.com/paygate/paygate/services/internal/jobs/job"
)

// DetectionJob scans the transactions created since its last run for the
// fraud rules (docs/contracts-frauds.md), every every, reading the
// thresholds on every run and waiting settle for late writes.
func DetectionJob(d Detector, thresholds func(context.Context) (Thresholds, error), every, settle time.Duration) job.Job {
	return job.Job{
		Name:        "gateway.fraud-detection",
		Description: "Scans the transactions made since its last run for velocity, amount spikes, failures followed by a success and identities shared by several clients, and flags them for review on the Fraud Management page, every PAYGATE_FRAUD_INTERVAL.",
		Every:       every,
		Run: func(ctx context.Context, run *job.Run) error {
			rep, err := Detect(ctx, d, DetectOptions{Thresholds: thresholds, Settle: settle}, time.Now())
			if rep.Scanned > 0 || rep.Flagged > 0 {
				run.Notifyf(job.LevelInformation, "Scanned %d transactions made until %s: %d new frauds, %d raised, %d transactions linked.",
					rep.Scanned, rep.To.Format(time.RFC3339), rep.Flagged, rep.Updated, rep.Linked)
			}
			if err != nil {
				return job.Failed(err, "The fraud detection could not finish; the next run starts where this one stopped.")
			}
			return nil
		},
	}
}
