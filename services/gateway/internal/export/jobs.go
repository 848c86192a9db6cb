package export

import (
	"context"
	"time"

	"github.com/paygate/paygate/services/internal/jobs/job"
)

// TempSweeper removes what workers that died mid-file left behind: a local
// directory's temporary files, an S3 bucket's abandoned uploads.
type TempSweeper interface {
	SweepTemp(ctx context.Context, olderThan time.Duration) (int, error)
}

// RetentionJob deletes export files older than retention (the
// ExportRetentionHours setting, read on every run; PAYGATE_FILES_RETENTION by
// default), every every: their bytes go, their rows stay as Deleted. It also
// sweeps the temporary files of workers that died mid-file (older than a day:
// no export takes that long).
func RetentionJob(s *Service, temp TempSweeper, retention func(context.Context) time.Duration, every time.Duration) job.Job {
	return job.Job{
		Name:        "gateway.files-retention",
		Description: "Deletes export files older than ExportRetentionHours (setting; PAYGATE_FILES_RETENTION, 3 days, by default): their bytes are removed and they stay listed as Deleted, looking every PAYGATE_FILES_RETENTION_INTERVAL.",
		Every:       every,
		Run: func(ctx context.Context, run *job.Run) error {
			const batch = 500
			total := 0
			keep := retention(ctx)
			for {
				n, err := s.DeleteExpired(ctx, time.Now().Add(-keep), batch)
				total += n
				if err != nil {
					run.Notifyf(job.LevelError, "Deleted %d export files, then stopped.", total)
					return job.Failed(err, "The expired export files could not all be deleted; the next run tries again.")
				}
				if n < batch {
					break
				}
			}
			if total > 0 {
				run.Notifyf(job.LevelInformation, "Deleted %d export files older than %s.", total, keep)
			}
			swept, err := temp.SweepTemp(ctx, 24*time.Hour)
			if err != nil {
				run.NotifyErr(job.LevelError, err, "The temporary files of interrupted exports could not be swept; the next run tries again.")
			} else if swept > 0 {
				run.Notifyf(job.LevelWarning, "Removed %d temporary files left by export workers that stopped mid-file.", swept)
			}
			return nil
		},
	}
}
