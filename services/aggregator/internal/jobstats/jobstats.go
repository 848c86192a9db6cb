// Package jobstats keeps the stats of every background job of every
// service, from the job run events they publish, and switches jobs on and
// off (docs/contracts-jobs.md). It imports no transport or storage code.
package jobstats

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/paygate/paygate/services/internal/apperr"
)

// MaxNotifications is how many notifications of a job are kept.
const MaxNotifications = 50

// Notification is a message a run wrote for operators.
type Notification struct {
	// Level is 0 trace … 5 critical.
	Level   int32
	At      time.Time
	Message string
}

// Registered is a process announcing a job it runs.
type Registered struct {
	Job, Service, Description string
	IntervalMS                int64
	// StartedAt is when the process started: a newer one resets the runs
	// since startup.
	StartedAt time.Time
}

// RunStarted is a run beginning.
type RunStarted struct {
	Job, Service, RunID string
	StartedAt           time.Time
}

// RunEnded is a run ending, with or without an error.
type RunEnded struct {
	Job, Service, RunID string
	StartedAt           time.Time
	EndedAt             time.Time
	NextRunExpectedAt   time.Time
	Notifications       []Notification
	// Runs is how many runs the event accounts for (at least 1).
	Runs int64
	// Error is the failed run's error; empty for a completed one.
	Error string
}

// Job is one job's stats.
type Job struct {
	Name, Service, Description string
	IntervalMS                 int64
	Enabled, Running, Stale    bool
	LastRunStarted             *time.Time
	LastRunCompleted           *time.Time
	NextRunExpectedAt          *time.Time
	TotalRunsSinceStartup      int64
	LastRunError               string
	// Notifications are the newest MaxNotifications, newest first.
	Notifications []Notification
	// LastEndedRunStarted is the start of the newest ended run (running is
	// a newer start).
	LastEndedRunStarted *time.Time
}

// Store keeps the stats. Errors are internal unless said otherwise.
type Store interface {
	// Register records a process announcing a job; a StartedAt newer than
	// the stored one resets the runs since startup.
	Register(ctx context.Context, e Registered) error
	// Start records a run beginning.
	Start(ctx context.Context, e RunStarted) error
	// End records a run ending, counting its runs once per run id and
	// keeping the newest MaxNotifications notifications.
	End(ctx context.Context, e RunEnded) error
	// Jobs returns every job, by name.
	Jobs(ctx context.Context) ([]Job, error)
}

// Flags is where jobs are switched off (the NATS KV bucket paygate_jobs).
type Flags interface {
	// Disabled returns the names of the jobs switched off.
	Disabled(ctx context.Context) (map[string]bool, error)
	// Set switches a job on or off.
	Set(ctx context.Context, name string, enabled bool) error
}

// Service answers job stats and switches jobs.
type Service struct {
	store Store
	flags Flags
	now   func() time.Time
}

// NewService returns the service.
func NewService(store Store, flags Flags, now func() time.Time) *Service {
	return &Service{store: store, flags: flags, now: now}
}

// Register, Start and End apply events (idempotent).
func (s *Service) Register(ctx context.Context, e Registered) error { return s.store.Register(ctx, e) }

// Start applies a run-started event.
func (s *Service) Start(ctx context.Context, e RunStarted) error { return s.store.Start(ctx, e) }

// End applies a run-ended event.
func (s *Service) End(ctx context.Context, e RunEnded) error {
	if e.Runs < 1 {
		e.Runs = 1
	}
	return s.store.End(ctx, e)
}

// Stats returns every job with its enabled and stale flags.
func (s *Service) Stats(ctx context.Context) ([]Job, error) {
	jobs, err := s.store.Jobs(ctx)
	if err != nil {
		return nil, err
	}
	off, err := s.flags.Disabled(ctx)
	if err != nil {
		return nil, fmt.Errorf("read job flags: %w", err)
	}
	now := s.now()
	for i := range jobs {
		j := &jobs[i]
		j.Enabled = !off[j.Name]
		j.Running = j.LastRunStarted != nil &&
			(j.LastEndedRunStarted == nil || j.LastRunStarted.After(*j.LastEndedRunStarted))
		j.Stale = j.Enabled && j.NextRunExpectedAt != nil && j.IntervalMS > 0 &&
			now.After(j.NextRunExpectedAt.Add(2*time.Duration(j.IntervalMS)*time.Millisecond))
	}
	slices.SortFunc(jobs, func(a, b Job) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return jobs, nil
}

// SetEnabled switches the job name on or off and returns it. Errors: not
// found (no such job), internal.
func (s *Service) SetEnabled(ctx context.Context, name string, enabled bool) (Job, error) {
	jobs, err := s.Stats(ctx)
	if err != nil {
		return Job{}, err
	}
	i := slices.IndexFunc(jobs, func(j Job) bool { return j.Name == name })
	if i < 0 {
		return Job{}, apperr.NotFound("The job %q was not found.", name)
	}
	if err := s.flags.Set(ctx, name, enabled); err != nil {
		return Job{}, fmt.Errorf("set job flag: %w", err)
	}
	j := jobs[i]
	j.Enabled = enabled
	if !enabled {
		j.Stale = false
	}
	return j, nil
}
