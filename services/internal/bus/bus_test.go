package bus_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
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
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/bus/natsembed"
	"github.com/paygate/paygate/services/internal/pgdb"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

// natsURL is the embedded server shared by the package's tests; each test
// uses subjects of its own.
var natsURL string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "bus-test-nats-")
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
	ctx := testContext(t, 10*time.Second)
	nc, js, err := bus.Connect(ctx, natsURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if err := bus.EnsureStream(ctx, js); err != nil {
		t.Fatal(err)
	}
	return js
}

func uniqueSubject(t *testing.T) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return bus.SubjectPrefix + "test_" + hex.EncodeToString(b)
}

func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}

// startRelay runs a relay until the test ends.
func startRelay(t *testing.T, pool *pgxpool.Pool, js jetstream.JetStream) {
	t.Helper()
	r := bus.NewRelay(pool, js, quietLogger())
	r.Interval = 50 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("relay Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("relay did not stop within 10s")
		}
	})
}

func enqueue(t *testing.T, pool *pgxpool.Pool, subject string, msgs ...proto.Message) []string {
	t.Helper()
	var ids []string
	err := pgdb.InTx(testContext(t, 10*time.Second), pool, func(tx pgx.Tx) error {
		for _, m := range msgs {
			id, err := bus.Enqueue(context.Background(), tx, subject, m)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("enqueue: %v", err)
	}
	return ids
}

func started(sid string) *eventsv1.SessionStarted {
	return &eventsv1.SessionStarted{SessionId: sid, UserId: 7, Username: "u", StartedAt: timestamppb.Now()}
}

// collect reads every message on subject with an ordered consumer until want
// arrived or the wait ended.
func collect(t *testing.T, js jetstream.JetStream, subject string, want int, wait time.Duration) []jetstream.Msg {
	t.Helper()
	ctx := testContext(t, wait)
	cons, err := js.OrderedConsumer(ctx, bus.StreamName, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subject}})
	if err != nil {
		t.Fatal(err)
	}
	var got []jetstream.Msg
	for len(got) < want {
		msg, err := cons.Next(jetstream.FetchContext(ctx))
		if err != nil {
			t.Fatalf("received %d of %d messages on %s: %v", len(got), want, subject, err)
		}
		got = append(got, msg)
	}
	return got
}

// storedCount returns how many messages the stream holds on subject.
func storedCount(t *testing.T, js jetstream.JetStream, subject string) uint64 {
	t.Helper()
	ctx := testContext(t, 5*time.Second)
	stream, err := js.Stream(ctx, bus.StreamName)
	if err != nil {
		t.Fatal(err)
	}
	info, err := stream.Info(ctx, jetstream.WithSubjectFilter(subject))
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Subjects[subject]
}

func TestSubject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		msg  proto.Message
		want string
	}{
		{&eventsv1.SessionStarted{}, "paygate.events.session_started"},
		{&eventsv1.SessionRevoked{}, "paygate.events.session_revoked"},
		{&eventsv1.PasswordChanged{}, "paygate.events.password_changed"},
		{&timestamppb.Timestamp{}, "paygate.events.timestamp"},
	}
	for _, tt := range tests {
		if got := bus.Subject(tt.msg); got != tt.want {
			t.Errorf("Subject(%T) = %q, want %q", tt.msg, got, tt.want)
		}
	}
}

func TestRolledBackEnqueuePublishesNothing(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, outboxMigrations)
	js := connect(t)
	subject := uniqueSubject(t)
	startRelay(t, pool, js)

	errRollback := errors.New("rollback")
	err := pgdb.InTx(testContext(t, 5*time.Second), pool, func(tx pgx.Tx) error {
		if _, err := bus.Enqueue(context.Background(), tx, subject, started("rolled-back")); err != nil {
			return err
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatalf("InTx = %v", err)
	}
	ids := enqueue(t, pool, subject, started("committed"))

	// The committed event arrives; the rolled-back one, enqueued before it,
	// never does.
	msgs := collect(t, js, subject, 1, 10*time.Second)
	var ev eventsv1.SessionStarted
	if err := bus.Decode(msgs[0], &ev); err != nil {
		t.Fatal(err)
	}
	if ev.GetSessionId() != "committed" {
		t.Fatalf("first event = %q, want the committed one", ev.GetSessionId())
	}
	if got := msgs[0].Headers().Get(jetstream.MsgIDHeader); got != ids[0] {
		t.Errorf("Nats-Msg-Id = %q, want the event id %q", got, ids[0])
	}
	if n := storedCount(t, js, subject); n != 1 {
		t.Errorf("stream holds %d messages, want 1", n)
	}
}

func TestTwoRelaysPublishEachEventOnce(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, outboxMigrations)
	js := connect(t)
	subject := uniqueSubject(t)

	const txs, perTx = 20, 10
	var want []string
	for i := range txs {
		var batch []proto.Message
		for j := range perTx {
			sid := fmt.Sprintf("s-%03d-%02d", i, j)
			batch = append(batch, started(sid))
			want = append(want, sid)
		}
		enqueue(t, pool, subject, batch...)
	}
	startRelay(t, pool, js)
	startRelay(t, pool, js)

	msgs := collect(t, js, subject, len(want), 20*time.Second)
	seen := map[string]int{}
	for _, m := range msgs {
		var ev eventsv1.SessionStarted
		if err := bus.Decode(m, &ev); err != nil {
			t.Fatal(err)
		}
		seen[ev.GetSessionId()]++
	}
	for _, sid := range want {
		if seen[sid] != 1 {
			t.Errorf("event %s received %d times", sid, seen[sid])
		}
	}
	if n := storedCount(t, js, subject); n != uint64(len(want)) {
		t.Errorf("stream holds %d messages, want %d", n, len(want))
	}
	waitFor(t, 10*time.Second, "every row marked published", func() bool {
		var left int
		err := pool.QueryRow(context.Background(), "SELECT count(*) FROM outbox WHERE published_at IS NULL").Scan(&left)
		return err == nil && left == 0
	})
}

func TestRepublishIsDeduplicatedByMsgID(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, outboxMigrations)
	js := connect(t)
	subject := uniqueSubject(t)
	ctx := testContext(t, 20*time.Second)

	ids := enqueue(t, pool, subject, started("once"))
	runRelayUntilPublished(t, pool, js)

	// A relay that died after publishing but before marking leaves the row
	// unpublished; the next publish carries the same Nats-Msg-Id.
	if _, err := pool.Exec(ctx, "UPDATE outbox SET published_at = NULL WHERE id = $1", ids[0]); err != nil {
		t.Fatal(err)
	}
	runRelayUntilPublished(t, pool, js)

	if n := storedCount(t, js, subject); n != 1 {
		t.Fatalf("stream holds %d messages after a republish, want 1", n)
	}
}

func runRelayUntilPublished(t *testing.T, pool *pgxpool.Pool, js jetstream.JetStream) {
	t.Helper()
	r := bus.NewRelay(pool, js, quietLogger())
	r.Interval = 50 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	waitFor(t, 10*time.Second, "outbox published", func() bool {
		var left int
		err := pool.QueryRow(context.Background(), "SELECT count(*) FROM outbox WHERE published_at IS NULL").Scan(&left)
		return err == nil && left == 0
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestRelayPrunesOldPublishedRows(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, outboxMigrations)
	js := connect(t)
	ctx := testContext(t, 10*time.Second)
	if _, err := pool.Exec(ctx, `
		INSERT INTO outbox (id, subject, payload, created_at, published_at) VALUES
		('018f0000-0000-7000-8000-000000000001', 'paygate.events.old', '', now() - interval '3 days', now() - interval '2 days'),
		('018f0000-0000-7000-8000-000000000002', 'paygate.events.recent', '', now() - interval '1 hour', now() - interval '1 hour')`); err != nil {
		t.Fatal(err)
	}
	startRelay(t, pool, js)
	waitFor(t, 10*time.Second, "old row pruned", func() bool {
		var n int
		err := pool.QueryRow(context.Background(), "SELECT count(*) FROM outbox").Scan(&n)
		return err == nil && n == 1
	})
}

func TestConsume(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, outboxMigrations)
	js := connect(t)
	subject := uniqueSubject(t)
	enqueue(t, pool, subject, started("ok-1"), started("flaky"), started("poison"), started("ok-2"))
	startRelay(t, pool, js)

	var mu sync.Mutex
	handled := map[string]int{}
	var flakyTries atomic.Int32
	allDone := make(chan struct{})
	var closeOnce sync.Once

	ctx, cancel := context.WithCancel(context.Background())
	durable := "test-" + subject[len(bus.SubjectPrefix):]
	consumeDone := make(chan error, 1)
	go func() {
		consumeDone <- bus.Consume(ctx, js, durable, subject, func(_ context.Context, msg jetstream.Msg) error {
			var ev eventsv1.SessionStarted
			if err := bus.Decode(msg, &ev); err != nil {
				return bus.Permanent(err)
			}
			switch ev.GetSessionId() {
			case "flaky":
				if flakyTries.Add(1) == 1 {
					return errors.New("temporary failure")
				}
			case "poison":
				return bus.Permanent(errors.New("cannot handle"))
			}
			mu.Lock()
			handled[ev.GetSessionId()]++
			if handled["ok-1"] > 0 && handled["ok-2"] > 0 && handled["flaky"] > 0 {
				closeOnce.Do(func() { close(allDone) })
			}
			mu.Unlock()
			return nil
		}, bus.WithLogger(quietLogger()), bus.WithBackoff(20*time.Millisecond, 100*time.Millisecond))
	}()

	select {
	case <-allDone:
	case <-time.After(20 * time.Second):
		t.Fatal("events not handled within 20s")
	}
	infoCtx := testContext(t, 10*time.Second)
	waitFor(t, 10*time.Second, "every message acknowledged or terminated", func() bool {
		c, err := js.Consumer(infoCtx, bus.StreamName, durable)
		if err != nil {
			return false
		}
		info, err := c.Info(infoCtx)
		return err == nil && info.NumAckPending == 0 && info.NumPending == 0 && info.NumRedelivered == 0
	})
	cancel()
	select {
	case err := <-consumeDone:
		if err != nil {
			t.Fatalf("Consume: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Consume did not return after cancel")
	}
	mu.Lock()
	defer mu.Unlock()
	if handled["flaky"] != 1 || flakyTries.Load() != 2 {
		t.Errorf("flaky handled %d times in %d tries, want 1 in 2", handled["flaky"], flakyTries.Load())
	}
	if handled["ok-1"] != 1 || handled["ok-2"] != 1 || handled["poison"] != 0 {
		t.Errorf("handled = %v", handled)
	}
	if err := js.DeleteConsumer(infoCtx, bus.StreamName, durable); err != nil {
		t.Errorf("delete consumer: %v", err)
	}
}

// waitFor polls cond every 20 ms until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestEnqueueBatch checks the batch writes one outbox row per event, in
// order, on each event's own subject, with the ids it answers, and nothing
// when the transaction rolls back.
func TestEnqueueBatch(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, outboxMigrations)
	ctx := testContext(t, 10*time.Second)

	errRollback := errors.New("rollback")
	err := pgdb.InTx(ctx, pool, func(tx pgx.Tx) error {
		if _, err := bus.EnqueueBatch(ctx, tx, started("rolled-back")); err != nil {
			return err
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatalf("InTx = %v", err)
	}
	var ids []string
	err = pgdb.InTx(ctx, pool, func(tx pgx.Tx) error {
		var err error
		ids, err = bus.EnqueueBatch(ctx, tx, started("a"), &eventsv1.ActivityRecorded{ActivityId: 9}, started("b"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT id::text, subject, payload FROM outbox ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		id, subject string
		payload     []byte
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		return x, r.Scan(&x.id, &x.subject, &x.payload)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || len(ids) != 3 {
		t.Fatalf("outbox rows = %d, ids = %d, want 3 each", len(got), len(ids))
	}
	wantSubjects := []string{bus.Subject(&eventsv1.SessionStarted{}), bus.Subject(&eventsv1.ActivityRecorded{}), bus.Subject(&eventsv1.SessionStarted{})}
	for i, r := range got {
		if r.id != ids[i] || r.subject != wantSubjects[i] {
			t.Errorf("row %d = (%s, %s), want (%s, %s)", i, r.id, r.subject, ids[i], wantSubjects[i])
		}
	}
	var last eventsv1.SessionStarted
	if err := proto.Unmarshal(got[2].payload, &last); err != nil || last.GetSessionId() != "b" {
		t.Errorf("third payload = %v (%v), want session b", &last, err)
	}
}

// TestQueueEnqueue: the events queued on a batch commit with its other
// statements, and a failing statement in the batch writes none of them.
func TestQueueEnqueue(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, outboxMigrations)
	ctx := testContext(t, 10*time.Second)

	failing := &pgx.Batch{}
	if _, err := bus.QueueEnqueue(failing, started("lost")); err != nil {
		t.Fatal(err)
	}
	failing.Queue(`SELECT 1/0`)
	if err := pool.SendBatch(ctx, failing).Close(); err == nil {
		t.Fatal("a batch with a failing statement succeeded")
	}
	ok := &pgx.Batch{}
	ok.Queue(`SELECT 1`)
	ids, err := bus.QueueEnqueue(ok, started("a"), started("b"))
	if err != nil {
		t.Fatal(err)
	}
	if err := pool.SendBatch(ctx, ok).Close(); err != nil {
		t.Fatal(err)
	}
	var got []string
	rows, err := pool.Query(ctx, `SELECT id::text FROM outbox ORDER BY created_at, id`)
	if err != nil {
		t.Fatal(err)
	}
	if got, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, ids) {
		t.Fatalf("outbox ids = %v, want %v (the failed batch's event must not be there)", got, ids)
	}
}
