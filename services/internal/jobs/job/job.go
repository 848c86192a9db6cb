// Package job defines a background job and one run of it: what a job's
// body needs (notifications for operators, the signal to stop) and nothing
// of how runs are scheduled. It does no I/O, so that a domain package can
// keep its job's body beside its code; package jobs runs them (locks across
// replicas, enable flags, events) and re-exports these names.
package job

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/paygate/paygate/services/internal/apperr"
)

// DefaultLease is how long a continuous run lasts when its Job sets no Lease.
const DefaultLease = 30 * time.Second

// MaxNotifications is the most notifications a run keeps; older ones are
// dropped and counted in a warning.
const MaxNotifications = 50

// Level is a notification's level (spec 02 §4).
type Level int32

// Notification levels.
const (
	LevelTrace Level = iota
	LevelDebug
	LevelInformation
	LevelWarning
	LevelError
	LevelCritical
)

// Job is one background job of a service.
type Job struct {
	// Name is unique across services: "<service>.<kebab-case name>", e.g.
	// "gateway.provider-polling". It is the key of the job's flag and of its
	// statistics, so it must not change.
	Name string
	// Description says what the job does, in one sentence.
	Description string
	// Every makes the job periodic: one run every Every, the first as soon
	// as the replica holds the job's lock.
	Every time.Duration
	// Continuous makes the job a loop: each run lasts until Run.Stopping
	// closes (after Lease, or sooner when the job is disabled or the process
	// stops), and the next run starts at once.
	Continuous bool
	// Lease is how long a continuous run lasts (DefaultLease).
	Lease time.Duration
	// Run does the work. A continuous job loops until run.Stopping() closes
	// (run.Wait helps) and returns nil; an error fails the run. Operators
	// see the sentence of an error made with Failed (or of an apperr.Error
	// of a kind other than internal); any other error is reported as
	// InternalFailure, its text going to the log only (it is a library's:
	// "can't scan into dest[0]: ..."). ctx ends when the process stops.
	Run func(ctx context.Context, run *Run) error
}

var namePattern = regexp.MustCompile(`^[a-z][a-z0-9]*\.[a-z0-9]+(-[a-z0-9]+)*$`)

// ValidName reports whether name is a job's name: "<service>.<kebab-case>".
func ValidName(name string) bool { return namePattern.MatchString(name) }

// Interval is the time between the starts of two runs: Every, or the lease
// of a continuous job.
func (j Job) Interval() time.Duration {
	if j.Continuous {
		return j.LeaseTime()
	}
	return j.Every
}

// LeaseTime is how long a continuous run lasts: Lease, or DefaultLease.
func (j Job) LeaseTime() time.Duration {
	if j.Lease > 0 {
		return j.Lease
	}
	return DefaultLease
}

// Check reports what is wrong with j for a service's runner.
func (j Job) Check(service string) error {
	var problems []string
	if !namePattern.MatchString(j.Name) || !strings.HasPrefix(j.Name, service+".") {
		problems = append(problems, fmt.Sprintf("name %q must be %q followed by a kebab-case name", j.Name, service+"."))
	}
	if strings.TrimSpace(j.Description) == "" {
		problems = append(problems, "a description is required")
	}
	if j.Continuous == (j.Every > 0) {
		problems = append(problems, "exactly one of Every and Continuous must be set")
	}
	if j.Run == nil {
		problems = append(problems, "Run is required")
	}
	if len(problems) > 0 {
		return fmt.Errorf("job %s: %s", j.Name, strings.Join(problems, "; "))
	}
	return nil
}

// Notification is a message a run wrote for operators.
type Notification struct {
	Level   Level
	At      time.Time
	Message string
}

// NewRun returns a run that began at startedAt, stamps its notifications
// with now, ends when stopping closes and logs the failures it is told of
// (NotifyErr) to log (slog.Default when nil). The runner makes one per run;
// tests of a job's body may too.
func NewRun(id string, startedAt time.Time, now func() time.Time, stopping <-chan struct{}, log *slog.Logger) *Run {
	return &Run{ID: id, StartedAt: startedAt, now: now, stopping: stopping, log: log}
}

// Run is one run of a job: its id, when it began, the notifications it
// writes, and the signal to stop.
type Run struct {
	// ID identifies the run (a UUID).
	ID string
	// StartedAt is when it began.
	StartedAt time.Time

	now      func() time.Time
	stopping <-chan struct{}
	log      *slog.Logger

	mu      sync.Mutex
	notes   []Notification
	dropped int
}

// Notify adds a notification for operators: a sentence, with no secret in
// it. A run keeps its last MaxNotifications.
func (r *Run) Notify(level Level, message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.notes) == MaxNotifications {
		r.notes = append(r.notes[:0], r.notes[1:]...)
		r.dropped++
	}
	r.notes = append(r.notes, Notification{Level: level, At: r.now(), Message: message})
}

// Notifyf is Notify with a formatted message.
func (r *Run) Notifyf(level Level, format string, args ...any) {
	r.Notify(level, fmt.Sprintf(format, args...))
}

// NotifyErr adds a notification saying what failed (format and args: a
// sentence that does not quote err) and logs err with the job and the run,
// for the people who run the service. An error's text is a library's ("can't
// scan into dest[0]: ...", addresses, SQL) and never goes into a
// notification.
func (r *Run) NotifyErr(level Level, err error, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.Notify(level, msg)
	log := r.log
	if log == nil {
		log = slog.Default().With("run_id", r.ID)
	}
	log.Warn("job run notified a failure", "notification", msg, "error", err)
}

// Notifications returns the run's notifications, oldest first. When more
// than MaxNotifications were written, the oldest kept one says how many
// were left out.
func (r *Run) Notifications() []Notification {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]Notification(nil), r.notes...)
	if r.dropped > 0 && len(out) > 0 {
		out[0] = Notification{Level: LevelWarning, At: out[0].At,
			Message: fmt.Sprintf("%d earlier notifications of this run were left out.", r.dropped+1)}
	}
	return out
}

// Stopping returns a channel closed when the run should end: the lease of a
// continuous run is over, the job was disabled (continuous runs only), the
// replica lost the job's lock, or the process is stopping. Work in progress
// may finish first.
func (r *Run) Stopping() <-chan struct{} { return r.stopping }

// Wait waits d, or less if the run should end, and reports whether the run
// goes on: a continuous job's loop is `for { work(); if !run.Wait(d) {
// return nil } }`.
func (r *Run) Wait(d time.Duration) bool {
	select {
	case <-r.stopping:
		return false
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.stopping:
		return false
	case <-t.C:
		return true
	}
}

// InternalFailure is what operators are told of a failed run whose error
// has no sentence for them (not made with Failed): the error itself goes to
// the log with the run id.
const InternalFailure = "The run failed on an internal error; the service's log has the details under the run's id."

// Failure is the error of a run that failed, with the sentence operators
// see and the cause kept for the log.
type Failure struct {
	// Message is a sentence for operators: what failed and what happens
	// next, without library text or secrets.
	Message string
	// Cause is the underlying error, for the log only.
	Cause error
}

// Failed returns the error of a run that failed as a whole: operators read
// the sentence made of format and args, the log gets cause.
func Failed(cause error, format string, args ...any) error {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	return &Failure{Message: msg, Cause: cause}
}

// Error returns the message followed by the cause, for the log.
func (f *Failure) Error() string {
	if f.Cause != nil {
		return f.Message + " " + f.Cause.Error()
	}
	return f.Message
}

// Unwrap returns the cause.
func (f *Failure) Unwrap() error { return f.Cause }

// Reported is what operators are told of a run's error: the sentence of a
// Failure in its chain, the message of an apperr.Error of a kind other than
// internal, or InternalFailure.
func Reported(err error) string {
	var f *Failure
	if errors.As(err, &f) {
		return f.Message
	}
	if e := apperr.As(err); e != nil && e.Kind != apperr.KindInternal && e.Kind != "" && e.Message != "" {
		return e.Message
	}
	return InternalFailure
}
