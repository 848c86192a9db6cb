package main

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/aggregator/internal/postgres"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/pgdb"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
	"github.com/paygate/paygate/services/internal/servicetest"
)

// TestRebuildJobAfterEmptyRebuild runs the aggregator.rebuild job on a schema
// whose first run found the gateway without transactions: that run only
// marked the rebuild as finished (FinishRebuild, with no start), and every
// later run must then see that nothing is needed. It failed on every run
// with "cannot scan NULL into *bool" (issue 25): "finished IS NULL OR
// started > finished" is NULL when a rebuild finished without a start.
func TestRebuildJobAfterEmptyRebuild(t *testing.T) {
	schema, env, _, conn := newSchema(t)
	ctx := context.Background()

	// The first process migrates the schema; the first run of the job on an
	// empty gateway marks the rebuild finished, as RebuildIfNeeded does.
	first := servicetest.Run(t, run, env)
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}
	pool, err := pgdb.Open(ctx, pgtest.URL(), schema)
	if err != nil {
		t.Fatal(err)
	}
	err = postgres.NewStore(pool).FinishRebuild(ctx)
	pool.Close()
	if err != nil {
		t.Fatal(err)
	}

	// The next process runs the job at once. The gateway is unreachable: a
	// run that (rightly) needs no rebuild never calls it.
	env["PAYGATE_AGGREGATOR_AUTO_REBUILD"] = "true"
	servicetest.Run(t, run, env)

	// The run's report is in the schema's outbox (other processes on the
	// shared stream may report a job of the same name).
	deadline := time.Now().Add(30 * time.Second)
	for {
		completed, failed := rebuildReports(t, conn, schema)
		if len(failed) > 0 {
			t.Fatalf("aggregator.rebuild failed: %s", failed[0])
		}
		if completed > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("aggregator.rebuild never reported a run")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// rebuildReports reads the aggregator.rebuild run reports in schema's
// outbox: how many runs completed, and the errors of those that failed.
func rebuildReports(t *testing.T, conn *pgx.Conn, schema string) (completed int, failed []string) {
	t.Helper()
	rows, err := conn.Query(context.Background(), "SELECT subject, payload FROM "+schema+".outbox WHERE subject = ANY($1) ORDER BY created_at",
		[]string{bus.Subject(&eventsv1.JobRunCompleted{}), bus.Subject(&eventsv1.JobRunFailed{})})
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var subject string
		var payload []byte
		if err := rows.Scan(&subject, &payload); err != nil {
			t.Fatal(err)
		}
		if subject == bus.Subject(&eventsv1.JobRunCompleted{}) {
			var ev eventsv1.JobRunCompleted
			if err := proto.Unmarshal(payload, &ev); err != nil {
				t.Fatal(err)
			}
			if ev.GetJob() == "aggregator.rebuild" {
				completed++
			}
			continue
		}
		var ev eventsv1.JobRunFailed
		if err := proto.Unmarshal(payload, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.GetJob() == "aggregator.rebuild" {
			failed = append(failed, ev.GetError())
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return completed, failed
}
