package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/paygate/paygate/services/internal/jobs/job"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/internal/bus"
)

// Options tune a Runner; zero values take the defaults.
type Options struct {
	// Retry is the longest a replica waits between two tries to take a
	// job's lock (2 s; a periodic job's Every when shorter).
	Retry time.Duration
	// LockCheck is how often the connection holding a job's lock is checked
	// during a run (5 s): a run whose lock was lost is asked to stop.
	LockCheck time.Duration
	// EventTimeout bounds the writing of a job event to the outbox (5 s).
	EventTimeout time.Duration
	// Instance names the process in events (host name:process id).
	Instance string
	// Now is the clock (time.Now).
	Now func() time.Time
	// Logger receives failures (slog.Default).
	Logger *slog.Logger
}

// Runner runs one service's jobs. Make it with NewRunner, add jobs with Add,
// then Run it.
type Runner struct {
	service string
	pool    *pgxpool.Pool
	js      jetstream.JetStream
	o       Options
	log     *slog.Logger
	jobs    []Job
	flags   *flags
	started time.Time
}

// NewRunner returns a runner of service's jobs (service is auth, gateway,
// callbacks or aggregator) that takes its locks on, and writes its events
// to the outbox of, pool's schema, and reads the enabled flags through js.
func NewRunner(service string, pool *pgxpool.Pool, js jetstream.JetStream, o Options) *Runner {
	if o.Retry <= 0 {
		o.Retry = 2 * time.Second
	}
	if o.LockCheck <= 0 {
		o.LockCheck = 5 * time.Second
	}
	if o.EventTimeout <= 0 {
		o.EventTimeout = 5 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Instance == "" {
		o.Instance = Instance()
	}
	return &Runner{service: service, pool: pool, js: js, o: o, log: o.Logger.With("component", "jobs"), flags: newFlags()}
}

// Instance returns this process's name in events: host name:process id.
func Instance() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	return host + ":" + strconv.Itoa(os.Getpid())
}

// Add adds jobs to run. It returns an error naming every problem of a job
// (a name not of the runner's service, a name already added, no schedule).
func (r *Runner) Add(jobs ...Job) error {
	var errs []error
	for _, j := range jobs {
		err := j.Check(r.service)
		for _, have := range r.jobs {
			if have.Name == j.Name {
				err = errors.Join(err, fmt.Errorf("job %s: added twice", j.Name))
			}
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		r.jobs = append(r.jobs, j)
	}
	return errors.Join(errs...)
}

// Jobs returns the jobs added, in order.
func (r *Runner) Jobs() []Job { return append([]Job(nil), r.jobs...) }

// Run reads the enabled flags, reports the jobs (JobRegistered), and runs
// every job on this replica whenever it holds the job's lock, until ctx
// ends. It returns an error only when it cannot start: the flags bucket
// cannot be opened or read.
func (r *Runner) Run(ctx context.Context) error {
	r.started = r.o.Now()
	kv, err := Bucket(ctx, r.js)
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped while starting, like the wait for the flags below
		}
		return fmt.Errorf("jobs: %w", err)
	}
	wctx, stopWatch := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stopWatch()
	ready := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.flags.watch(wctx, kv, ready, r.o.Retry, r.log)
	}()
	// No run starts before the flags are known: a disabled job must not
	// run once at every start.
	select {
	case <-ready:
	case <-ctx.Done():
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("jobs: the flags in bucket %s could not be read within 30s", BucketName)
	}

	registered := make([]proto.Message, 0, len(r.jobs))
	for _, j := range r.jobs {
		initMetrics(j.Name)
		registered = append(registered, &eventsv1.JobRegistered{
			Job: j.Name, Service: r.service, Instance: r.o.Instance, Description: j.Description,
			IntervalMs: j.Interval().Milliseconds(), StartedAt: timestamppb.New(r.started),
		})
	}
	r.publish(ctx, registered...)

	for _, j := range r.jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.loop(ctx, j)
		}()
	}
	<-ctx.Done()
	return nil
}

// loop takes j's lock whenever no other replica holds it and runs j while
// it holds it, until ctx ends.
func (r *Runner) loop(ctx context.Context, j Job) {
	retry := r.o.Retry
	if !j.Continuous && j.Every < retry {
		retry = j.Every
	}
	log := r.log.With("job", j.Name)
	for {
		conn, err := r.tryLock(ctx, j.Name)
		if err != nil && ctx.Err() == nil {
			log.WarnContext(ctx, "take the job's lock", "error", err)
		}
		if conn != nil {
			log.DebugContext(ctx, "took the job's lock; this replica runs it")
			r.lead(ctx, j, conn, log)
			closeConn(ctx, conn)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(retry):
		}
	}
}

// lockSQL takes the session advisory lock of a job: the key is derived from
// the schema and the job's name, so that services (and tests) on other
// schemas of the same database never contend.
const lockSQL = `SELECT pg_try_advisory_lock(hashtextextended(current_schema() || '/' || $1, 0))`

// tryLock returns a connection holding job name's lock, taken out of the
// pool, or nil when another session holds it.
func (r *Runner) tryLock(ctx context.Context, name string) (*pgx.Conn, error) {
	pc, err := r.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire a connection: %w", err)
	}
	var got bool
	if err := pc.QueryRow(ctx, lockSQL, name).Scan(&got); err != nil {
		// Whether the lock was taken is unknown: the session must end.
		closeConn(ctx, pc.Hijack())
		return nil, fmt.Errorf("try the lock: %w", err)
	}
	if !got {
		pc.Release()
		return nil, nil
	}
	// The session holds the lock for as long as it lives: it never goes back
	// to the pool, and closing it releases the lock.
	return pc.Hijack(), nil
}

func closeConn(ctx context.Context, conn *pgx.Conn) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	_ = conn.Close(cctx)
}

// lead runs j while conn holds its lock, until ctx ends or conn breaks.
func (r *Runner) lead(ctx context.Context, j Job, conn *pgx.Conn, log *slog.Logger) {
	next := r.o.Now()
	for {
		enabled, changed := r.flags.enabled(j.Name)
		if !enabled {
			select {
			case <-ctx.Done():
				return
			case <-changed:
			}
			continue
		}
		if wait := next.Sub(r.o.Now()); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-changed:
				t.Stop()
				continue
			case <-t.C:
			}
		}
		if err := conn.Ping(ctx); err != nil {
			if ctx.Err() == nil {
				log.WarnContext(ctx, "the connection holding the job's lock broke; trying to take it again", "error", err)
			}
			return
		}
		started, lost := r.runOnce(ctx, j, conn, log)
		if lost || ctx.Err() != nil {
			return
		}
		next = r.nextRun(j, started, r.o.Now())
	}
}

// nextRun is when the run after one started at started and ended at ended
// is due: at once for a continuous job, Every after the start for a
// periodic one (at once when the run took longer).
func (r *Runner) nextRun(j Job, started, ended time.Time) time.Time {
	if j.Continuous {
		return ended
	}
	return maxTime(started.Add(j.Every), ended)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// tracerName names the spans the runner starts.
const tracerName = "github.com/paygate/paygate/services/internal/jobs"

// runOnce runs j once and reports it. It returns when the run started, and
// whether the lock was lost meanwhile.
func (r *Runner) runOnce(ctx context.Context, j Job, conn *pgx.Conn, log *slog.Logger) (time.Time, bool) {
	stopping := make(chan struct{})
	id := uuid.NewString()
	run := job.NewRun(id, r.o.Now(), r.o.Now, stopping, log.With("run_id", id))
	// A scheduled run is a span, the root of its trace: the events it
	// writes (its reports included) carry it. A continuous run lasts a
	// lease (minutes), too long for a span; such a job traces each piece of
	// its work instead (the gateway's polling: one span per transaction).
	var err error
	if !j.Continuous {
		var span trace.Span
		ctx, span = otel.Tracer(tracerName).Start(ctx, "job "+j.Name, trace.WithNewRoot(),
			trace.WithAttributes(attribute.String("paygate.job", j.Name), attribute.String("paygate.job.run_id", run.ID)))
		defer func() {
			if err != nil {
				span.SetStatus(codes.Error, sentence(err))
			}
			span.End()
		}()
	}
	r.publish(ctx, &eventsv1.JobRunStarted{
		Job: j.Name, Service: r.service, Instance: r.o.Instance, RunId: run.ID, StartedAt: timestamppb.New(run.StartedAt),
	})

	// The watcher closes stopping, and checks the lock's connection (which
	// nothing else uses during the run), until the run ends.
	done := make(chan struct{})
	watched := make(chan bool, 1)
	go func() { watched <- r.watchRun(ctx, j, conn, stopping, done, log) }()

	err = r.call(ctx, j, run, log)
	close(done)
	lost := <-watched

	ended := r.o.Now()
	observeRun(j.Name, run.StartedAt, ended, err)
	next := r.nextRun(j, run.StartedAt, ended)
	notes := notifications(run.Notifications())
	if err != nil {
		log.WarnContext(ctx, "job run failed", "run_id", run.ID, "error", err)
		r.publish(ctx, &eventsv1.JobRunFailed{
			Job: j.Name, Service: r.service, Instance: r.o.Instance, RunId: run.ID,
			StartedAt: timestamppb.New(run.StartedAt), CompletedAt: timestamppb.New(ended),
			NextRunExpectedAt: timestamppb.New(next), Notifications: notes, Error: sentence(err),
		})
	} else {
		r.publish(ctx, &eventsv1.JobRunCompleted{
			Job: j.Name, Service: r.service, Instance: r.o.Instance, RunId: run.ID,
			StartedAt: timestamppb.New(run.StartedAt), CompletedAt: timestamppb.New(ended),
			NextRunExpectedAt: timestamppb.New(next), Notifications: notes, Runs: 1,
		})
	}
	return run.StartedAt, lost
}

// watchRun closes stopping when the run should end (lease over, job
// disabled — both for continuous jobs only —, lock lost, process stopping)
// and returns, once done is closed, whether the lock was lost.
func (r *Runner) watchRun(ctx context.Context, j Job, conn *pgx.Conn, stopping chan struct{}, done <-chan struct{}, log *slog.Logger) bool {
	stop := sync.OnceFunc(func() { close(stopping) })
	defer stop()
	var lease <-chan time.Time
	if j.Continuous {
		t := time.NewTimer(j.LeaseTime())
		defer t.Stop()
		lease = t.C
	}
	check := time.NewTicker(r.o.LockCheck)
	defer check.Stop()
	lost := false
	for {
		enabled, changed := r.flags.enabled(j.Name)
		if !enabled && j.Continuous {
			stop()
		}
		select {
		case <-done:
			return lost
		case <-ctx.Done():
			stop()
			<-done
			return lost
		case <-lease:
			stop()
		case <-changed:
		case <-check.C:
			if lost {
				continue
			}
			pctx, cancel := context.WithTimeout(ctx, r.o.LockCheck)
			err := conn.Ping(pctx)
			cancel()
			if err != nil && ctx.Err() == nil {
				log.WarnContext(ctx, "the connection holding the job's lock broke during a run; asking the run to stop", "error", err)
				lost = true
				stop()
			}
		}
	}
}

// call runs j.Run, turning a panic into an error.
func (r *Runner) call(ctx context.Context, j Job, run *Run, log *slog.Logger) (err error) {
	defer func() {
		if p := recover(); p != nil {
			log.ErrorContext(ctx, "job run panicked", "run_id", run.ID, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = errPanic
		}
	}()
	return j.Run(ctx, run)
}

// sentence is what operators are told of err (Reported), bounded.
func sentence(err error) string {
	const limit = 500
	s := Reported(err)
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit]) + "…"
	}
	return s
}

func notifications(ns []Notification) []*eventsv1.JobNotification {
	out := make([]*eventsv1.JobNotification, len(ns))
	for i, n := range ns {
		out[i] = &eventsv1.JobNotification{Level: int32(n.Level), At: timestamppb.New(n.At), Message: n.Message}
	}
	return out
}

// publish writes msgs to the outbox in one transaction, within
// EventTimeout and even while ctx is ending (a run's last event is written
// at shutdown too). A failure is logged only: reporting never stops the
// work.
func (r *Runner) publish(ctx context.Context, msgs ...proto.Message) {
	if len(msgs) == 0 {
		return
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.o.EventTimeout)
	defer cancel()
	err := pgx.BeginFunc(wctx, r.pool, func(tx pgx.Tx) error {
		_, err := bus.EnqueueBatch(wctx, tx, msgs...)
		return err
	})
	if err != nil {
		r.log.WarnContext(ctx, "write job events to the outbox; they are lost", "events", len(msgs), "error", err)
	}
}
