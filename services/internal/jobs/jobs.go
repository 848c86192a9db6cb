// Package jobs runs a service's background jobs and reports every run.
//
// A Job is periodic (one run every Every) or continuous (a loop that runs for
// at most a Lease, returns, is reported, and starts again at once). A Runner
// runs a service's jobs:
//
//   - One runner across replicas: a replica runs a job only while it holds a
//     Postgres session advisory lock on a key derived from the schema and the
//     job's name, taken on a connection of its own. It keeps the lock, and
//     runs the job, until the process stops or the connection breaks; the
//     other replicas try to take it every few seconds and take over when the
//     connection of the first one drops.
//   - An enabled flag per job in the NATS JetStream key-value bucket
//     paygate_jobs (SetEnabled, EnabledFlags): no replica starts a run of a
//     job whose flag is "off", and a continuous run in progress is asked to
//     stop.
//   - Events through the service's outbox (bus.EnqueueBatch): JobRegistered
//     for each job when the process starts, then JobRunStarted and
//     JobRunCompleted or JobRunFailed for each run, with the notifications
//     the run wrote. Writing them never fails the job: a failed write is
//     logged and the job goes on.
//
// docs/jobs.md describes the model for operators and for service teams.
package jobs

import (
	"github.com/paygate/paygate/services/internal/jobs/job"
)

// The definitions of package job, under the names the services use.
type (
	// Job is one background job of a service (job.Job).
	Job = job.Job
	// Run is one run of a job (job.Run).
	Run = job.Run
	// Level is a notification's level (job.Level).
	Level = job.Level
	// Notification is a message a run wrote for operators (job.Notification).
	Notification = job.Notification
)

// Notification levels, lease and notification bounds (package job).
const (
	LevelTrace       = job.LevelTrace
	LevelDebug       = job.LevelDebug
	LevelInformation = job.LevelInformation
	LevelWarning     = job.LevelWarning
	LevelError       = job.LevelError
	LevelCritical    = job.LevelCritical
	DefaultLease     = job.DefaultLease
	MaxNotifications = job.MaxNotifications
)

// The failure sentences of package job, under the names the services use.
type (
	// Failure is the error of a run that failed, with the sentence
	// operators see (job.Failure).
	Failure = job.Failure
)

// InternalFailure is what operators are told of a failed run whose error
// has no sentence for them (job.InternalFailure).
const InternalFailure = job.InternalFailure

// Failed returns the error of a run that failed as a whole: operators read
// the sentence, the log gets cause (job.Failed).
func Failed(cause error, format string, args ...any) error { return job.Failed(cause, format, args...) }

// Reported is what operators are told of a run's error (job.Reported).
func Reported(err error) string { return job.Reported(err) }

// errPanic is the error of a run whose Run panicked.
var errPanic = Failed(nil, "The job stopped on an unexpected internal error; the service's log has the details under the run's id.")
