// Package bulkqueue runs a service's bulk runs (docs/contracts-bulk.md) on
// riverqueue/river: river's tables in the service's own schema (Migrate),
// one job per run, unique while it waits, runs or retries, worked in short
// slices so that a run whose worker died is rescued soon by river's leader.
// The run's own state, progress and per-item idempotency are the service's
// (its bulk_runs and items tables); the queue only says when to work a run.
package bulkqueue

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
)

// Kind names a service's job kind ("gateway.bulk_run") as a type, since
// river reads a job's kind from its arguments' type.
type Kind interface{ Name() string }

// Args is the river job of one bulk run of kind K.
type Args[K Kind] struct {
	RunID int64 `json:"runId"`
}

// Kind implements river.JobArgs.
func (Args[K]) Kind() string {
	var k K
	return k.Name()
}

// InsertOpts implements river.JobArgsWithInsertOpts: one job per run while
// it is waiting, running or retrying (a resume while it still runs adds
// none).
func (Args[K]) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: bulkQueue, MaxAttempts: 25, UniqueOpts: river.UniqueOpts{ByArgs: true,
		ByState: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
			rivertype.JobStateRetryable, rivertype.JobStateScheduled}}}
}

const bulkQueue = "bulk"

// Work works a run until it is done or deadline passes; more: it has
// work left (bulk.Service.Work).
type Work func(ctx context.Context, runID int64, deadline time.Time) (more bool, err error)

// Options tune the queue.
type Options struct {
	// Workers is how many runs are worked at once (0: the client only
	// inserts jobs; Run must not be called).
	Workers int
	// Slice is how long a job works a run before it comes back (20 s when
	// 0): jobs stay short, so a dead worker's run is rescued soon.
	Slice time.Duration
	// RescueAfter is when river's leader takes back a job whose worker died
	// (1 min when 0; more than Slice).
	RescueAfter time.Duration
	Logger      *slog.Logger
}

// Queue runs the bulk runs of kind K on river, its tables in the service's
// schema.
type Queue[K Kind] struct {
	client *river.Client[pgx.Tx]
}

// Migrate brings river's tables in schema up to date, under an
// advisory lock so that replicas starting together migrate once.
func Migrate(ctx context.Context, pool *pgxpool.Pool, schema string, log *slog.Logger) error {
	m, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Schema: schema, Logger: log})
	if err != nil {
		return fmt.Errorf("river migrator: %w", err)
	}
	// River's migrations each run in a transaction of their own (one adds
	// an enum value a later statement uses), so the lock is a session's.
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrate river: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtextextended($1 || '/river-migrate', 0))`, schema); err != nil {
		return fmt.Errorf("migrate river: lock: %w", err)
	}
	defer func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtextextended($1 || '/river-migrate', 0))`, schema)
	}()
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("migrate river: %w", err)
	}
	return nil
}

// New makes the queue's river client; Start runs it.
func New[K Kind](pool *pgxpool.Pool, schema string, work Work, o Options) (*Queue[K], error) {
	if o.Slice == 0 {
		o.Slice = 20 * time.Second
	}
	if o.RescueAfter == 0 {
		o.RescueAfter = time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &worker[K]{work: work, slice: o.Slice})
	cfg := &river.Config{Schema: schema, Logger: o.Logger, Workers: workers,
		JobTimeout: 2*o.Slice + 5*time.Second, FetchPollInterval: 500 * time.Millisecond}
	cfg.RescueStuckJobsAfter = max(o.RescueAfter, cfg.JobTimeout+time.Second)
	if o.Workers > 0 {
		cfg.Queues = map[string]river.QueueConfig{bulkQueue: {MaxWorkers: o.Workers}}
	}
	client, err := river.NewClient(riverpgxv5.New(pool), cfg)
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	return &Queue[K]{client: client}, nil
}

// InsertTx queues run id's job in tx (the run's own transaction).
func (q *Queue[K]) InsertTx(ctx context.Context, tx pgx.Tx, runID int64) error {
	if _, err := q.client.InsertTx(ctx, tx, Args[K]{RunID: runID}, nil); err != nil {
		return fmt.Errorf("queue bulk run %d: %w", runID, err)
	}
	return nil
}

// Run works the queue until ctx ends, then stops: the jobs being worked are
// asked to stop and come back to the queue.
func (q *Queue[K]) Run(ctx context.Context) error {
	if err := q.client.Start(ctx); err != nil {
		return fmt.Errorf("start river: %w", err)
	}
	<-ctx.Done()
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := q.client.StopAndCancel(stop); err != nil {
		return fmt.Errorf("stop river: %w", err)
	}
	return nil
}

type worker[K Kind] struct {
	river.WorkerDefaults[Args[K]]
	work  Work
	slice time.Duration
}

// Work implements river.Worker: a slice of the run, then the job comes back
// at once while the run has work left.
func (w *worker[K]) Work(ctx context.Context, job *river.Job[Args[K]]) error {
	more, err := w.work(ctx, job.Args.RunID, time.Now().Add(w.slice))
	if err != nil {
		return err
	}
	if more {
		return river.JobSnooze(time.Millisecond)
	}
	return nil
}
