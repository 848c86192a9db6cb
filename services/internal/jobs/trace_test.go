package jobs_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/jobs"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

// TestScheduledRunIsTraced runs a scheduled job and checks the run is a
// root span, "job <name>", that the job's work runs in it, and that the
// run's reports in the outbox carry its traceparent (so would any event the
// job writes). Not parallel: it installs the process's tracer provider (a
// recorder), which the parallel tests then share harmlessly.
func TestScheduledRunIsTraced(t *testing.T) {
	recorder := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })

	pool, _ := pgtest.Schema(t, outboxMigrations)
	js := connect(t)
	name := jobName(t, "traced")
	var inRun atomic.Value
	rep := startReplica(t, pool, js, "host:1", jobs.Job{Name: name, Description: "Records its span.", Every: time.Hour,
		Run: func(ctx context.Context, _ *jobs.Run) error {
			inRun.Store(trace.SpanContextFromContext(ctx))
			return nil
		}})
	eventually(t, 10*time.Second, "the run reported", func() bool {
		return len(eventsOf[*eventsv1.JobRunCompleted](outboxEvents(t, pool))) == 1
	})
	rep.stop(t)

	sc, _ := inRun.Load().(trace.SpanContext)
	if !sc.IsValid() {
		t.Fatal("the job ran outside any span")
	}
	var run sdktrace.ReadOnlySpan
	for _, s := range recorder.Ended() {
		if s.SpanContext().SpanID() == sc.SpanID() {
			run = s
		}
	}
	if run == nil || run.Name() != "job "+name || run.Parent().IsValid() {
		t.Fatalf("the run's span %v, want a root span named %q", run, "job "+name)
	}
	want := bus.FormatTraceparent(sc)
	for _, subject := range []string{bus.Subject(&eventsv1.JobRunStarted{}), bus.Subject(&eventsv1.JobRunCompleted{})} {
		var got string
		if err := pool.QueryRow(testContext(t, 10*time.Second),
			`SELECT coalesce(traceparent, '') FROM outbox WHERE subject = $1`, subject).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s written with traceparent %q, want the run's %q", subject, got, want)
		}
	}
}
