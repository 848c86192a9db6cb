package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/aggregator/internal/jobstats"
	"github.com/paygate/paygate/services/internal/pgdb"
)

var _ jobstats.Store = (*Store)(nil)

// keptRuns is how many counted run ids of a job are remembered against
// redelivery.
const keptRuns = 500

// Register implements jobstats.Store.
func (s *Store) Register(ctx context.Context, e jobstats.Registered) error {
	_, err := s.pool.Exec(ctx, `
		INSERT INTO jobs AS j (name, service, description, interval_ms, startup_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (name) DO UPDATE SET
			service = excluded.service, description = excluded.description, interval_ms = excluded.interval_ms,
			total_runs_since_startup = CASE WHEN j.startup_at IS NULL OR excluded.startup_at > j.startup_at
				THEN 0 ELSE j.total_runs_since_startup END,
			startup_at = greatest(j.startup_at, excluded.startup_at)`,
		e.Job, e.Service, e.Description, e.IntervalMS, e.StartedAt)
	if err != nil {
		return fmt.Errorf("register job %s: %w", e.Job, err)
	}
	return nil
}

// Start implements jobstats.Store.
func (s *Store) Start(ctx context.Context, e jobstats.RunStarted) error {
	_, err := s.pool.Exec(ctx, `
		INSERT INTO jobs AS j (name, service, last_run_started) VALUES ($1, $2, $3)
		ON CONFLICT (name) DO UPDATE SET last_run_started = greatest(j.last_run_started, excluded.last_run_started)`,
		e.Job, e.Service, e.StartedAt)
	if err != nil {
		return fmt.Errorf("start run of job %s: %w", e.Job, err)
	}
	return nil
}

// End implements jobstats.Store.
func (s *Store) End(ctx context.Context, e jobstats.RunEnded) error {
	return pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO jobs (name, service) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, e.Job, e.Service); err != nil {
			return fmt.Errorf("add job %s: %w", e.Job, err)
		}
		// Lock the job so that its counters and trims are not raced.
		if _, err := tx.Exec(ctx, `SELECT 1 FROM jobs WHERE name = $1 FOR UPDATE`, e.Job); err != nil {
			return fmt.Errorf("lock job %s: %w", e.Job, err)
		}
		tag, err := tx.Exec(ctx, `INSERT INTO job_runs (job, run_id, ended_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
			e.Job, e.RunID, e.EndedAt)
		if err != nil {
			return fmt.Errorf("record run of job %s: %w", e.Job, err)
		}
		if tag.RowsAffected() == 0 {
			return nil // counted before: a redelivery
		}
		if _, err := tx.Exec(ctx, `
			UPDATE jobs SET total_runs_since_startup = total_runs_since_startup + $2
			WHERE name = $1 AND (startup_at IS NULL OR $3 >= startup_at)`, e.Job, e.Runs, e.StartedAt); err != nil {
			return fmt.Errorf("count runs of job %s: %w", e.Job, err)
		}
		var next *time.Time
		if !e.NextRunExpectedAt.IsZero() {
			next = &e.NextRunExpectedAt
		}
		if _, err := tx.Exec(ctx, `
			UPDATE jobs SET last_run_started = greatest(last_run_started, $2), last_ended_run_started = $2,
				last_run_completed = $3, next_run_expected_at = $4, last_run_error = $5
			WHERE name = $1 AND (last_run_completed IS NULL OR last_run_completed <= $3)`,
			e.Job, e.StartedAt, e.EndedAt, next, e.Error); err != nil {
			return fmt.Errorf("end run of job %s: %w", e.Job, err)
		}
		for i, n := range e.Notifications {
			if _, err := tx.Exec(ctx, `
				INSERT INTO job_notifications (job, run_id, seq, at, level, message) VALUES ($1, $2, $3, $4, $5, $6)
				ON CONFLICT DO NOTHING`, e.Job, e.RunID, i, n.At, n.Level, n.Message); err != nil {
				return fmt.Errorf("add notification of job %s: %w", e.Job, err)
			}
		}
		if _, err := tx.Exec(ctx, `
			DELETE FROM job_notifications WHERE job = $1 AND (run_id, seq) IN (
				SELECT run_id, seq FROM job_notifications WHERE job = $1
				ORDER BY at DESC, run_id DESC, seq DESC OFFSET $2)`, e.Job, jobstats.MaxNotifications); err != nil {
			return fmt.Errorf("trim notifications of job %s: %w", e.Job, err)
		}
		if _, err := tx.Exec(ctx, `
			DELETE FROM job_runs WHERE job = $1 AND run_id IN (
				SELECT run_id FROM job_runs WHERE job = $1 ORDER BY ended_at DESC OFFSET $2)`, e.Job, keptRuns); err != nil {
			return fmt.Errorf("trim runs of job %s: %w", e.Job, err)
		}
		return nil
	})
}

// Jobs implements jobstats.Store.
func (s *Store) Jobs(ctx context.Context) ([]jobstats.Job, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT name, service, description, interval_ms, total_runs_since_startup, last_run_started,
			last_ended_run_started, last_run_completed, next_run_expected_at, last_run_error
		FROM jobs ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	var jobs []jobstats.Job
	index := map[string]int{}
	for rows.Next() {
		var j jobstats.Job
		if err := rows.Scan(&j.Name, &j.Service, &j.Description, &j.IntervalMS, &j.TotalRunsSinceStartup,
			&j.LastRunStarted, &j.LastEndedRunStarted, &j.LastRunCompleted, &j.NextRunExpectedAt, &j.LastRunError); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scan job: %w", err)
		}
		index[j.Name] = len(jobs)
		jobs = append(jobs, j)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	rows, err = s.pool.Query(ctx, `SELECT job, level, at, message FROM job_notifications ORDER BY job, at DESC, run_id DESC, seq DESC`)
	if err != nil {
		return nil, fmt.Errorf("list job notifications: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var job string
		var n jobstats.Notification
		if err := rows.Scan(&job, &n.Level, &n.At, &n.Message); err != nil {
			return nil, fmt.Errorf("scan job notification: %w", err)
		}
		if i, ok := index[job]; ok {
			jobs[i].Notifications = append(jobs[i].Notifications, n)
		}
	}
	return jobs, rows.Err()
}
