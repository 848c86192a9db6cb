package jobs_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/bus/natsembed"
	"github.com/paygate/paygate/services/internal/jobs"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
	"github.com/paygate/paygate/services/internal/telemetry/metrics"
)

// natsURL is the embedded server shared by the package's tests; each test
// names its jobs uniquely, so the one flags bucket serves them all.
var natsURL string

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "jobs-test-nats-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	url, shutdown, err := natsembed.Start(dir, "127.0.0.1", -1)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	natsURL = url
	code := m.Run()
	shutdown()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			return 1
		}
	}
	return code
}

var outboxMigrations = fstest.MapFS{
	"0001_outbox.up.sql":       {Data: []byte(bus.OutboxDDL)},
	"0002_outbox_trace.up.sql": {Data: []byte(bus.OutboxTraceDDL)},
}

func testContext(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func connect(t *testing.T) jetstream.JetStream {
	t.Helper()
	nc, js, err := bus.Connect(testContext(t, 10*time.Second), natsURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return js
}

// jobName is a name no other test uses.
func jobName(t *testing.T, what string) string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "test." + what + "-" + hex.EncodeToString(b)
}

// replica is one runner of the test's schema, stopped at the end of the test.
type replica struct {
	runner  *jobs.Runner
	cancel  context.CancelFunc
	done    chan error
	stopped sync.Once
}

func (r *replica) stop(t *testing.T) {
	t.Helper()
	r.stopped.Do(func() { r.wait(t) })
}

func (r *replica) wait(t *testing.T) {
	t.Helper()
	r.cancel()
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("runner: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("runner did not stop within 10s")
	}
}

func startReplica(t *testing.T, pool *pgxpool.Pool, js jetstream.JetStream, instance string, js2 ...jobs.Job) *replica {
	t.Helper()
	return startLoggedReplica(t, pool, js, instance, slog.New(slog.DiscardHandler), js2...)
}

func startLoggedReplica(t *testing.T, pool *pgxpool.Pool, js jetstream.JetStream, instance string, log *slog.Logger, js2 ...jobs.Job) *replica {
	t.Helper()
	r := jobs.NewRunner("test", pool, js, jobs.Options{Retry: 50 * time.Millisecond, LockCheck: 100 * time.Millisecond,
		Instance: instance, Logger: log})
	if err := r.Add(js2...); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rep := &replica{runner: r, cancel: cancel, done: make(chan error, 1)}
	go func() { rep.done <- r.Run(ctx) }()
	t.Cleanup(func() { rep.stop(t) })
	return rep
}

func secondPool(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(testContext(t, 10*time.Second), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// eventually waits up to d for cond.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// concurrency counts the runs of a job in progress, per instance.
type concurrency struct {
	mu      sync.Mutex
	active  int
	max     int
	runs    map[string]int
	current string
}

func (c *concurrency) enter(instance string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.active++
	c.max = max(c.max, c.active)
	if c.runs == nil {
		c.runs = map[string]int{}
	}
	c.runs[instance]++
	c.current = instance
}

func (c *concurrency) leave() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.active--
}

func (c *concurrency) snapshot() (maxActive int, runs map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	runs = map[string]int{}
	for k, v := range c.runs {
		runs[k] = v
	}
	return c.max, runs
}

func TestOneRunnerAcrossReplicas(t *testing.T) {
	t.Parallel()
	pool, url := pgtest.Schema(t, outboxMigrations)
	pool2 := secondPool(t, url)
	js := connect(t)

	var c concurrency
	job := func(instance string) jobs.Job {
		return jobs.Job{Name: jobName(t, "single"), Description: "Counts its runs.", Continuous: true, Lease: 150 * time.Millisecond,
			Run: func(ctx context.Context, run *jobs.Run) error {
				c.enter(instance)
				defer c.leave()
				for run.Wait(10 * time.Millisecond) {
				}
				return nil
			}}
	}
	a := job("a")
	b := job("b")
	b.Name = a.Name
	ra := startReplica(t, pool, js, "a", a)
	rb := startReplica(t, pool2, js, "b", b)
	eventually(t, 10*time.Second, "three runs", func() bool {
		_, runs := c.snapshot()
		return runs["a"]+runs["b"] >= 3
	})
	maxActive, runs := c.snapshot()
	if maxActive != 1 {
		t.Fatalf("%d runs at once, want 1", maxActive)
	}
	if runs["a"] > 0 && runs["b"] > 0 {
		t.Fatalf("both replicas ran the job while both were up: %v", runs)
	}
	// The replica that runs it stops; the other one takes over.
	leader, other := ra, rb
	if runs["b"] > 0 {
		leader, other = rb, ra
	}
	otherName := map[*replica]string{ra: "a", rb: "b"}[other]
	leader.stop(t)
	eventually(t, 10*time.Second, "the other replica takes over", func() bool {
		_, runs := c.snapshot()
		return runs[otherName] >= 2
	})
	if maxActive, _ := c.snapshot(); maxActive != 1 {
		t.Fatalf("%d runs at once, want 1", maxActive)
	}
}

func TestDisabledJobRunsNowhere(t *testing.T) {
	t.Parallel()
	pool, url := pgtest.Schema(t, outboxMigrations)
	pool2 := secondPool(t, url)
	js := connect(t)
	ctx := testContext(t, 30*time.Second)

	name := jobName(t, "disabled")
	if err := jobs.SetEnabled(ctx, js, name, false); err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int64
	job := jobs.Job{Name: name, Description: "Counts its runs.", Every: 20 * time.Millisecond,
		Run: func(context.Context, *jobs.Run) error { runs.Add(1); return nil }}
	startReplica(t, pool, js, "a", job)
	startReplica(t, pool2, js, "b", job)
	time.Sleep(500 * time.Millisecond)
	if n := runs.Load(); n != 0 {
		t.Fatalf("a disabled job ran %d times", n)
	}
	flags, err := jobs.EnabledFlags(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	if enabled, ok := flags[name]; !ok || enabled {
		t.Fatalf("flags[%s] = %v, %v; want false, true", name, enabled, ok)
	}

	if err := jobs.SetEnabled(ctx, js, name, true); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "runs once enabled", func() bool { return runs.Load() >= 3 })

	// Disabled again: at most the run in progress finishes.
	if err := jobs.SetEnabled(ctx, js, name, false); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	before := runs.Load()
	time.Sleep(300 * time.Millisecond)
	if after := runs.Load(); after != before {
		t.Fatalf("the job ran %d times after it was disabled", after-before)
	}
}

func TestDisablingStopsAContinuousRun(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, outboxMigrations)
	js := connect(t)
	ctx := testContext(t, 30*time.Second)

	name := jobName(t, "stop")
	running := make(chan struct{}, 1)
	ended := make(chan struct{}, 1)
	startReplica(t, pool, js, "a", jobs.Job{Name: name, Description: "Waits to be stopped.", Continuous: true, Lease: time.Minute,
		Run: func(ctx context.Context, run *jobs.Run) error {
			select {
			case running <- struct{}{}:
			default:
			}
			<-run.Stopping()
			select {
			case ended <- struct{}{}:
			default:
			}
			return nil
		}})
	select {
	case <-running:
	case <-ctx.Done():
		t.Fatal("no run")
	}
	if err := jobs.SetEnabled(ctx, js, name, false); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the run went on after the job was disabled")
	}
}

// outboxEvents decodes the outbox rows of the test's schema.
func outboxEvents(t *testing.T, pool *pgxpool.Pool) []proto.Message {
	t.Helper()
	rows, err := pool.Query(testContext(t, 10*time.Second), `SELECT subject, payload FROM outbox ORDER BY created_at, id`)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		subject string
		payload []byte
	}
	rs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		return x, r.Scan(&x.subject, &x.payload)
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []proto.Message
	for _, r := range rs {
		var m proto.Message
		switch r.subject {
		case bus.Subject(&eventsv1.JobRegistered{}):
			m = &eventsv1.JobRegistered{}
		case bus.Subject(&eventsv1.JobRunStarted{}):
			m = &eventsv1.JobRunStarted{}
		case bus.Subject(&eventsv1.JobRunCompleted{}):
			m = &eventsv1.JobRunCompleted{}
		case bus.Subject(&eventsv1.JobRunFailed{}):
			m = &eventsv1.JobRunFailed{}
		default:
			t.Fatalf("unexpected subject %s", r.subject)
		}
		if err := proto.Unmarshal(r.payload, m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func eventsOf[T proto.Message](events []proto.Message) []T {
	var out []T
	for _, e := range events {
		if x, ok := e.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

func TestRunEventsInTheOutbox(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, outboxMigrations)
	js := connect(t)

	okName, failName, panicName, toldName := jobName(t, "ok"), jobName(t, "fail"), jobName(t, "panic"), jobName(t, "told")
	var failRuns, panicRuns atomic.Int64
	logs := &lockedBuffer{}
	rep := startLoggedReplica(t, pool, js, "host:1", slog.New(slog.NewJSONHandler(logs, nil)),
		jobs.Job{Name: okName, Description: "Succeeds and says so.", Every: time.Hour,
			Run: func(_ context.Context, run *jobs.Run) error {
				run.Notify(jobs.LevelInformation, "Cleaned 3 rows.")
				for i := range 60 {
					run.Notifyf(jobs.LevelDebug, "Row %d.", i)
				}
				return nil
			}},
		jobs.Job{Name: failName, Description: "Fails.", Every: time.Hour,
			Run: func(_ context.Context, run *jobs.Run) error {
				failRuns.Add(1)
				run.NotifyErr(jobs.LevelError, errors.New("dial tcp 10.0.0.5:5432: connect: connection refused"), "The database did not answer.")
				// A library's text: operators get a sentence, the log gets this.
				return fmt.Errorf("read the flags: %w", errors.New("can't scan into dest[0]: cannot scan NULL into *bool"))
			}},
		jobs.Job{Name: toldName, Description: "Fails with a sentence.", Every: time.Hour,
			Run: func(context.Context, *jobs.Run) error {
				return jobs.Failed(errors.New("delete expired rows: conn closed"), "Expired rows could not be deleted; the next run tries again.")
			}},
		jobs.Job{Name: panicName, Description: "Panics.", Every: time.Hour,
			Run: func(context.Context, *jobs.Run) error {
				panicRuns.Add(1)
				panic("boom")
			}},
	)
	eventually(t, 10*time.Second, "four runs reported", func() bool {
		evs := outboxEvents(t, pool)
		return len(eventsOf[*eventsv1.JobRunCompleted](evs)) == 1 && len(eventsOf[*eventsv1.JobRunFailed](evs)) == 3
	})
	rep.stop(t)
	evs := outboxEvents(t, pool)

	registered := eventsOf[*eventsv1.JobRegistered](evs)
	if len(registered) != 4 {
		t.Fatalf("%d JobRegistered, want 4", len(registered))
	}
	for _, r := range registered {
		if r.Service != "test" || r.Instance != "host:1" || r.IntervalMs != time.Hour.Milliseconds() || r.Description == "" || r.StartedAt == nil {
			t.Errorf("JobRegistered = %v", r)
		}
	}
	started := map[string]*eventsv1.JobRunStarted{}
	for _, s := range eventsOf[*eventsv1.JobRunStarted](evs) {
		started[s.Job] = s
	}
	if len(started) != 4 {
		t.Fatalf("JobRunStarted of %d jobs, want 4", len(started))
	}

	done := eventsOf[*eventsv1.JobRunCompleted](evs)[0]
	if done.Job != okName || done.Runs != 1 || done.RunId != started[okName].RunId || done.Instance != "host:1" {
		t.Errorf("JobRunCompleted = %v", done)
	}
	if got, want := done.NextRunExpectedAt.AsTime(), done.StartedAt.AsTime().Add(time.Hour); !got.Equal(want) {
		t.Errorf("next run expected at %v, want %v", got, want)
	}
	if n := len(done.Notifications); n != jobs.MaxNotifications {
		t.Fatalf("%d notifications, want %d", n, jobs.MaxNotifications)
	}
	if first := done.Notifications[0]; first.Level != int32(jobs.LevelWarning) || !strings.Contains(first.Message, "12 earlier notifications") {
		t.Errorf("first notification = %v, want a warning that 12 were left out", first)
	}
	if last := done.Notifications[jobs.MaxNotifications-1]; last.Message != "Row 59." || last.Level != int32(jobs.LevelDebug) {
		t.Errorf("last notification = %v", last)
	}

	failed := map[string]*eventsv1.JobRunFailed{}
	for _, f := range eventsOf[*eventsv1.JobRunFailed](evs) {
		failed[f.Job] = f
	}
	if f := failed[failName]; f == nil || f.Error != jobs.InternalFailure || len(f.Notifications) != 1 ||
		f.Notifications[0].Level != int32(jobs.LevelError) || f.Notifications[0].Message != "The database did not answer." || f.RunId != started[failName].RunId {
		t.Errorf("JobRunFailed of the failing job = %v", f)
	}
	if f := failed[toldName]; f == nil || f.Error != "Expired rows could not be deleted; the next run tries again." {
		t.Errorf("JobRunFailed of the job that says why = %v", f)
	}
	// What operators were not told is in the log, with the run's id.
	var loggedNote, loggedErr bool
	for _, line := range strings.Split(logs.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil || rec["job"] != failName || rec["run_id"] != started[failName].RunId {
			continue
		}
		e, _ := rec["error"].(string)
		loggedNote = loggedNote || strings.Contains(e, "connection refused")
		loggedErr = loggedErr || strings.Contains(e, "can't scan into dest[0]")
	}
	if !loggedNote || !loggedErr {
		t.Errorf("the failing job's errors are not both in the log with its run id (notification %v, run %v):\n%s", loggedNote, loggedErr, logs)
	}
	if f := failed[panicName]; f == nil || f.Error == "" || strings.Contains(f.Error, "boom") {
		t.Errorf("JobRunFailed of the panicking job = %v", f)
	}
	// A failed periodic run waits for its next turn like any other.
	if failRuns.Load() != 1 || panicRuns.Load() != 1 {
		t.Errorf("failing jobs ran %d and %d times, want once each", failRuns.Load(), panicRuns.Load())
	}

	// The runs are counted by outcome and timed.
	for _, c := range []struct {
		job, outcome string
		want         float64
	}{
		{okName, "completed", 1}, {okName, "failed", 0},
		{failName, "completed", 0}, {failName, "failed", 1},
		{panicName, "failed", 1},
	} {
		if got := metrics.Value("paygate_job_runs_total", "job_name", c.job, "outcome", c.outcome); got != c.want {
			t.Errorf("paygate_job_runs_total{job_name=%q,outcome=%q} = %v, want %v", c.job, c.outcome, got, c.want)
		}
	}
	for _, job := range []string{okName, failName, panicName} {
		if got := metrics.Value("paygate_job_run_duration_seconds", "job_name", job); got != 1 {
			t.Errorf("%v runs of %s timed, want 1", got, job)
		}
	}
	if got := metrics.Value("paygate_job_last_success_timestamp_seconds", "job_name", okName); got < float64(done.CompletedAt.AsTime().Unix()) {
		t.Errorf("last success of %s at %v, want its run's end %v", okName, got, done.CompletedAt.AsTime())
	}
	if got := metrics.Value("paygate_job_last_success_timestamp_seconds", "job_name", failName); got != 0 {
		t.Errorf("last success of the failing job at %v, want none", got)
	}
}

// lockedBuffer is a log destination the runner's goroutines share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestReported(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"a library's error", errors.New("can't scan into dest[0]: cannot scan NULL into *bool"), jobs.InternalFailure},
		{"a failure with its sentence", fmt.Errorf("rebuild: %w", jobs.Failed(errors.New("conn closed"), "The rebuild stopped.")), "The rebuild stopped."},
		{"a failure formatted", jobs.Failed(nil, "Re-sealed %d keys.", 3), "Re-sealed 3 keys."},
		{"a domain error", fmt.Errorf("wrap: %w", apperr.FailedPrecondition("The settings are not valid.")), "The settings are not valid."},
		{"an internal domain error", apperr.Internal("select rows: %v", errors.New("conn closed")), jobs.InternalFailure},
	} {
		if got := jobs.Reported(tt.err); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestContinuousRunsRestartAfterTheLease(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, outboxMigrations)
	js := connect(t)

	const lease = 100 * time.Millisecond
	var mu sync.Mutex
	var spans []time.Duration
	ids := map[string]bool{}
	name := jobName(t, "loop")
	rep := startReplica(t, pool, js, "a", jobs.Job{Name: name, Description: "Loops.", Continuous: true, Lease: lease,
		Run: func(_ context.Context, run *jobs.Run) error {
			for run.Wait(5 * time.Millisecond) {
			}
			mu.Lock()
			defer mu.Unlock()
			spans = append(spans, time.Since(run.StartedAt))
			ids[run.ID] = true
			return nil
		}})
	eventually(t, 10*time.Second, "four runs", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(spans) >= 4
	})
	rep.stop(t)
	mu.Lock()
	defer mu.Unlock()
	if len(ids) != len(spans) {
		t.Errorf("%d run ids for %d runs", len(ids), len(spans))
	}
	for i, d := range spans[:len(spans)-1] { // the last one ended with the runner
		if d < lease || d > lease+time.Second {
			t.Errorf("run %d lasted %s, want about %s", i, d, lease)
		}
	}
	evs := outboxEvents(t, pool)
	completed := eventsOf[*eventsv1.JobRunCompleted](evs)
	if len(completed) != len(spans) {
		t.Fatalf("%d JobRunCompleted for %d runs", len(completed), len(spans))
	}
	for _, c := range completed {
		if !c.NextRunExpectedAt.AsTime().Equal(c.CompletedAt.AsTime()) {
			t.Errorf("a continuous run's next run is expected at %v, want at once (%v)", c.NextRunExpectedAt.AsTime(), c.CompletedAt.AsTime())
		}
	}
	if r := eventsOf[*eventsv1.JobRegistered](evs); len(r) != 1 || r[0].IntervalMs != lease.Milliseconds() {
		t.Errorf("JobRegistered = %v, want one with the lease as interval", r)
	}
}

func TestAddRefusesBadJobs(t *testing.T) {
	t.Parallel()
	r := jobs.NewRunner("gateway", nil, nil, jobs.Options{})
	run := func(context.Context, *jobs.Run) error { return nil }
	err := r.Add(
		jobs.Job{Name: "callbacks.relay", Description: "x", Every: time.Second, Run: run},
		jobs.Job{Name: "gateway.Bad_Name", Description: "x", Every: time.Second, Run: run},
		jobs.Job{Name: "gateway.both", Description: "x", Every: time.Second, Continuous: true, Run: run},
		jobs.Job{Name: "gateway.ok", Description: "Fine.", Every: time.Second, Run: run},
		jobs.Job{Name: "gateway.ok", Description: "Again.", Every: time.Second, Run: run},
	)
	for _, want := range []string{"callbacks.relay", "gateway.Bad_Name", "gateway.both", "added twice"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Add error %v does not name %s", err, want)
		}
	}
	if got := len(r.Jobs()); got != 1 {
		t.Errorf("%d jobs added, want 1", got)
	}
}

// A runner stopped while it opens the flags bucket (the process got SIGTERM
// right after it started) stops cleanly, as it does later on.
func TestRunStoppedWhileStarting(t *testing.T) {
	t.Parallel()
	js := connect(t)
	r := jobs.NewRunner("test", nil, js, jobs.Options{Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.Run(ctx); err != nil {
		t.Errorf("Run with its context ended = %v, want nil", err)
	}
}
