package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/paygate/paygate/services/internal/jobs/job"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Partitions are the upkeep of the transactions table's monthly partitions
// (migration 0028, docs/partitioning.md).
type Partitions struct {
	q pgdb.Querier
}

// NewPartitions returns the partitions' upkeep on q's schema.
func NewPartitions(q pgdb.Querier) *Partitions { return &Partitions{q: q} }

// Ensure creates the monthly partitions from the current month to the one
// monthsAhead months from now that do not exist yet, and returns how many it
// created, and whether the default partition holds rows (rows outside every
// monthly partition: an import of old rows, or months the job did not reach
// in time).
func (p *Partitions) Ensure(ctx context.Context, monthsAhead int) (created int, strays bool, err error) {
	if err := p.q.QueryRow(ctx, `SELECT ensure_transaction_partitions(now() + make_interval(months => $1))`,
		monthsAhead).Scan(&created); err != nil {
		return 0, false, fmt.Errorf("create the transactions' partitions %d months ahead: %w", monthsAhead, err)
	}
	if err := p.q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM transactions_default)`).Scan(&strays); err != nil {
		return created, false, fmt.Errorf("look into the transactions' default partition: %w", err)
	}
	return created, strays, nil
}

// PartitionsJob keeps the transactions' monthly partitions created
// monthsAhead months ahead, every hour (migration 0028,
// docs/partitioning.md).
func PartitionsJob(p *Partitions, monthsAhead int) job.Job {
	return job.Job{
		Name:        "gateway.transaction-partitions",
		Description: "Creates the transactions table's monthly partitions PAYGATE_PARTITION_MONTHS_AHEAD months ahead (3 by default), every hour, and warns when rows fell outside them into the default partition.",
		Every:       time.Hour,
		Run: func(ctx context.Context, run *job.Run) error {
			created, strays, err := p.Ensure(ctx, monthsAhead)
			if err != nil {
				return job.Failed(err, "The transactions' partitions could not be created ahead; the next run tries again.")
			}
			if created > 0 {
				run.Notifyf(job.LevelInformation, "Created %d monthly partitions of transactions.", created)
			}
			if strays {
				run.Notifyf(job.LevelWarning, "Some transactions are in the default partition, outside every monthly partition; docs/partitioning.md says how to move them.")
			}
			return nil
		},
	}
}
