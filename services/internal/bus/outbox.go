package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"
)

// OutboxDDL creates the outbox table. Each service that publishes events
// copies it verbatim into one of its migrations (migrations are plain SQL
// files, so they cannot refer to this constant); a test of the service checks
// that the migration still contains it.
const OutboxDDL = `CREATE TABLE outbox (
    id uuid PRIMARY KEY,
    subject text NOT NULL,
    payload bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    published_at timestamptz
);

CREATE INDEX outbox_unpublished_idx ON outbox (created_at, id) WHERE published_at IS NULL;
`

// notifyChannelPrefix + current_schema() is the LISTEN/NOTIFY channel that
// wakes the relay of one schema.
const notifyChannelPrefix = "paygate_outbox."

// Execer runs a statement: a pgx.Tx, or a connection inside a transaction
// its owner began itself (in a batch with its first statement). Enqueue
// and EnqueueBatch must be given one inside a transaction.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Enqueue writes msg to the outbox in the caller's transaction, to be
// published on Subject(msg) once the transaction commits, and returns the
// event id (a UUIDv7, also the Nats-Msg-Id). The trace of ctx, if any, goes
// with the event (OutboxTraceDDL). It wakes the schema's relays via NOTIFY,
// which Postgres delivers only on commit.
func Enqueue(ctx context.Context, tx Execer, subject string, msg proto.Message) (string, error) {
	payload, err := proto.Marshal(msg)
	if err != nil {
		return "", fmt.Errorf("enqueue %s: marshal: %w", subject, err)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return "", fmt.Errorf("enqueue %s: event id: %w", subject, err)
	}
	_, err = tx.Exec(ctx,
		`INSERT INTO outbox (id, subject, payload, traceparent) VALUES ($1, $2, $3, NULLIF($4, ''))`,
		id, subject, payload, traceparent(ctx))
	if err != nil {
		return "", fmt.Errorf("enqueue %s: insert: %w", subject, err)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_notify($1 || current_schema(), '')`, notifyChannelPrefix); err != nil {
		return "", fmt.Errorf("enqueue %s: notify: %w", subject, err)
	}
	return id.String(), nil
}

// EnqueueBatch is Enqueue for several events in one round trip: each goes
// to the outbox on Subject(msg), in order, with one NOTIFY for them all, and
// with the trace of ctx. It returns the event ids in the order of msgs.
func EnqueueBatch(ctx context.Context, tx Execer, msgs ...proto.Message) ([]string, error) {
	if len(msgs) == 0 {
		return nil, nil
	}
	sql, args, ids, err := enqueueStatement(msgs, repeat(traceparent(ctx), len(msgs)))
	if err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, sql, args...); err != nil {
		return nil, fmt.Errorf("enqueue %d events: %w", len(msgs), err)
	}
	return ids, nil
}

// QueueEnqueue queues on b the statement EnqueueBatch runs, for a caller
// that sends its writes as one pgx.Batch (one round trip, one implicit
// transaction): the events are committed with the batch's other statements
// or not at all. It returns the event ids in the order of msgs. The events
// carry no trace (QueueEnqueueTraced does).
func QueueEnqueue(b *pgx.Batch, msgs ...proto.Message) ([]string, error) {
	if len(msgs) == 0 {
		return nil, nil
	}
	sql, args, ids, err := enqueueStatement(msgs, repeat("", len(msgs)))
	if err != nil {
		return nil, err
	}
	b.Queue(sql, args...)
	return ids, nil
}

// QueueEnqueueTraced is QueueEnqueue for a batch holding the writes of
// several requests: msgs[i] carries the trace of ctxs[i], the context of the
// request that made it. ctxs and msgs have the same length.
func QueueEnqueueTraced(b *pgx.Batch, ctxs []context.Context, msgs []proto.Message) ([]string, error) {
	if len(ctxs) != len(msgs) {
		return nil, fmt.Errorf("enqueue %d events with %d contexts", len(msgs), len(ctxs))
	}
	if len(msgs) == 0 {
		return nil, nil
	}
	parents := make([]string, len(msgs))
	for i, ctx := range ctxs {
		parents[i] = traceparent(ctx)
	}
	sql, args, ids, err := enqueueStatement(msgs, parents)
	if err != nil {
		return nil, err
	}
	b.Queue(sql, args...)
	return ids, nil
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// enqueueStatement is one statement that writes msgs, with their
// traceparents ("" for none), to the outbox (UUIDv7 ids keep their order
// within the transaction's one created_at) and sends the NOTIFY, with its
// arguments and the event ids.
func enqueueStatement(msgs []proto.Message, traceparents []string) (string, []any, []string, error) {
	ids := make([]string, len(msgs))
	// [16]byte, not uuid.UUID: pgx encodes a slice of arrays directly, and
	// one of uuid.UUID (a driver.Valuer) by reflection and text per element.
	uids := make([][16]byte, len(msgs))
	subjects := make([]string, len(msgs))
	payloads := make([][]byte, len(msgs))
	for i, msg := range msgs {
		subject := Subject(msg)
		payload, err := proto.Marshal(msg)
		if err != nil {
			return "", nil, nil, fmt.Errorf("enqueue %s: marshal: %w", subject, err)
		}
		id, err := uuid.NewV7()
		if err != nil {
			return "", nil, nil, fmt.Errorf("enqueue %s: event id: %w", subject, err)
		}
		ids[i], uids[i], subjects[i], payloads[i] = id.String(), [16]byte(id), subject, payload
	}
	const sql = `
		WITH rows AS (
			INSERT INTO outbox (id, subject, payload, traceparent)
			SELECT e.id, e.subject, e.payload, NULLIF(e.traceparent, '')
			FROM unnest($1::uuid[], $2::text[], $3::bytea[], $5::text[]) AS e (id, subject, payload, traceparent))
		SELECT pg_notify($4 || current_schema(), '')`
	return sql, []any{uids, subjects, payloads, notifyChannelPrefix, traceparents}, ids, nil
}

// Relay publishes committed outbox rows to JetStream. Several relays (one per
// replica) may run on one schema: each batch is claimed with FOR UPDATE SKIP
// LOCKED, and the stream drops the rare duplicate by Nats-Msg-Id.
type Relay struct {
	pool *pgxpool.Pool
	js   jetstream.JetStream
	log  *slog.Logger

	// BatchSize is the number of rows claimed per transaction.
	BatchSize int
	// Interval is how often the relay looks for rows without a notification
	// (a missed NOTIFY, or rows left by a failed batch).
	Interval time.Duration
	// Retention is how long published rows are kept before pruning.
	Retention time.Duration
	// PruneEvery is how often published rows are pruned.
	PruneEvery time.Duration
	// PublishTimeout bounds one publish.
	PublishTimeout time.Duration

	lastPrune time.Time // kept across RunUntil calls, so a job's short runs still prune only every PruneEvery
}

// NewRelay returns a relay for the outbox of pool's schema with the default
// settings (batches of 100, a 1 s ticker, published rows kept for a day).
func NewRelay(pool *pgxpool.Pool, js jetstream.JetStream, log *slog.Logger) *Relay {
	if log == nil {
		log = slog.Default()
	}
	return &Relay{
		pool: pool, js: js, log: log.With("component", "outbox-relay"),
		BatchSize:      500,
		Interval:       time.Second,
		Retention:      24 * time.Hour,
		PruneEvery:     10 * time.Minute,
		PublishTimeout: 5 * time.Second,
	}
}

// Run publishes until ctx ends, then returns nil. Failures (Postgres or NATS
// down) are logged and retried on the next tick; Run returns an error only
// when it cannot start.
func (r *Relay) Run(ctx context.Context) error {
	_, err := r.RunUntil(ctx, nil)
	return err
}

// RelayReport is what a relay did in one RunUntil.
type RelayReport struct {
	// Published is the number of events published.
	Published int64
	// Failures is the number of failed publish or prune passes, and
	// LastError the last one's error.
	Failures  int
	LastError error
}

// RunUntil is Run until ctx ends or stop is closed (a job's run ending;
// batches already claimed are published first), and reports what it did.
func (r *Relay) RunUntil(ctx context.Context, stop <-chan struct{}) (RelayReport, error) {
	var rep RelayReport
	var schema string
	if err := r.pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		if ctx.Err() != nil {
			return rep, nil
		}
		return rep, fmt.Errorf("outbox relay: current schema: %w", err)
	}
	channel := notifyChannelPrefix + schema

	lctx, stopListen := context.WithCancel(ctx)
	wake := make(chan struct{}, 1)
	listenDone := make(chan struct{})
	go func() {
		defer close(listenDone)
		r.listen(lctx, channel, wake)
	}()
	defer func() { <-listenDone }()
	defer stopListen()

	ticker := time.NewTicker(r.Interval)
	defer ticker.Stop()
	failed := func(what string, err error) {
		if err != nil && ctx.Err() == nil {
			r.log.WarnContext(ctx, what, "error", err)
			rep.Failures++
			rep.LastError = err
		}
	}
	published, failures := outboxPublished.WithLabelValues(schema), outboxFailures.WithLabelValues(schema)
	// Only the replica holding the relay's job measures the outbox: one
	// that stops must not leave its last values behind.
	defer outboxPending.DeleteLabelValues(schema)
	defer outboxLag.DeleteLabelValues(schema)
	var lastSample time.Time
	for {
		n, err := r.drain(ctx)
		rep.Published += int64(n)
		published.Add(float64(n))
		if err != nil && ctx.Err() == nil {
			failures.Inc()
		}
		failed("publish outbox", err)
		if time.Since(lastSample) >= r.Interval {
			if err := r.sampleLag(ctx, schema); err != nil && ctx.Err() == nil {
				r.log.WarnContext(ctx, "measure outbox lag", "error", err)
			}
			lastSample = time.Now()
		}
		if time.Since(r.lastPrune) >= r.PruneEvery {
			failed("prune outbox", r.prune(ctx))
			r.lastPrune = time.Now()
		}
		select {
		case <-ctx.Done():
			return rep, nil
		case <-stop:
			return rep, nil
		case <-ticker.C:
		case <-wake:
		}
	}
}

// sampleLag sets the outbox gauges of schema: the unpublished events and
// the age of the oldest (a cheap read of the partial index
// outbox_unpublished_idx).
func (r *Relay) sampleLag(ctx context.Context, schema string) error {
	var pending int64
	var age float64
	err := r.pool.QueryRow(ctx, `
		SELECT count(*), COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8
		FROM outbox WHERE published_at IS NULL`).Scan(&pending, &age)
	if err != nil {
		return fmt.Errorf("count unpublished rows: %w", err)
	}
	outboxPending.WithLabelValues(schema).Set(float64(pending))
	outboxLag.WithLabelValues(schema).Set(max(age, 0))
	outboxSampled.WithLabelValues(schema).SetToCurrentTime()
	return nil
}

// listen holds a connection LISTENing on channel and signals wake on every
// notification, reconnecting after failures, until ctx ends.
func (r *Relay) listen(ctx context.Context, channel string, wake chan<- struct{}) {
	for ctx.Err() == nil {
		err := r.listenOnce(ctx, channel, wake)
		if ctx.Err() != nil {
			return
		}
		r.log.WarnContext(ctx, "outbox listen", "error", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(r.Interval):
		}
	}
}

func (r *Relay) listenOnce(ctx context.Context, channel string, wake chan<- struct{}) error {
	conn, err := r.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire: %w", err)
	}
	// A connection that LISTENed must not go back to the pool.
	listener := conn.Hijack()
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = listener.Close(closeCtx)
	}()
	if _, err := listener.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return fmt.Errorf("listen %s: %w", channel, err)
	}
	for {
		if _, err := listener.WaitForNotification(ctx); err != nil {
			return fmt.Errorf("wait for notification: %w", err)
		}
		select {
		case wake <- struct{}{}:
		default:
		}
	}
}

// drain publishes batches until a batch comes back short, and returns how
// many events it published.
func (r *Relay) drain(ctx context.Context) (int, error) {
	total := 0
	for ctx.Err() == nil {
		n, err := r.publishBatch(ctx)
		total += n
		if err != nil {
			return total, err
		}
		if n < r.BatchSize {
			return total, nil
		}
	}
	return total, nil
}

type outboxRow struct {
	id          uuid.UUID
	subject     string
	payload     []byte
	traceparent *string
}

// publishBatch claims up to BatchSize unpublished rows, publishes them in
// order and marks them published, all in one transaction. On a publish error
// the rows published so far are still marked, and the rest stay for a later
// try.
func (r *Relay) publishBatch(ctx context.Context) (int, error) {
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()

	rows, err := tx.Query(ctx, `
		SELECT id, subject, payload, traceparent FROM outbox
		WHERE published_at IS NULL
		ORDER BY created_at, id
		LIMIT $1
		FOR UPDATE SKIP LOCKED`, r.BatchSize)
	if err != nil {
		return 0, fmt.Errorf("claim rows: %w", err)
	}
	batch, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (outboxRow, error) {
		var o outboxRow
		err := row.Scan(&o.id, &o.subject, &o.payload, &o.traceparent)
		return o, err
	})
	if err != nil {
		return 0, fmt.Errorf("read rows: %w", err)
	}
	if len(batch) == 0 {
		return 0, nil
	}

	published, pubErr := r.publishAll(ctx, batch)
	if len(published) > 0 {
		if _, err := tx.Exec(ctx, `UPDATE outbox SET published_at = now() WHERE id = ANY($1)`, published); err != nil {
			return 0, fmt.Errorf("mark published: %w", err)
		}
		if err := tx.Commit(ctx); err != nil {
			return 0, fmt.Errorf("commit: %w", err)
		}
	}
	if pubErr != nil {
		return len(published), pubErr
	}
	return len(batch), nil
}

// publishAll publishes batch without waiting for each acknowledgement in
// turn: every message goes out at once, in order, and then the stream's
// acknowledgements are awaited (within PublishTimeout). It returns the ids
// the stream acknowledged and the first error; the others stay unpublished
// and are sent again later under the same message id, which the stream's
// duplicate window absorbs.
func (r *Relay) publishAll(ctx context.Context, batch []outboxRow) ([]uuid.UUID, error) {
	futures := make([]jetstream.PubAckFuture, 0, len(batch))
	var firstErr error
	for _, o := range batch {
		msg := nats.NewMsg(o.subject)
		msg.Data = o.payload
		if o.traceparent != nil && *o.traceparent != "" {
			msg.Header.Set(HeaderTraceparent, *o.traceparent)
		}
		f, err := r.js.PublishMsgAsync(msg, jetstream.WithMsgID(o.id.String()), jetstream.WithExpectStream(StreamName))
		if err != nil {
			firstErr = fmt.Errorf("publish %s on %s: %w", o.id, o.subject, err)
			break
		}
		futures = append(futures, f)
	}
	timeout := time.NewTimer(r.PublishTimeout)
	defer timeout.Stop()
	published := make([]uuid.UUID, 0, len(futures))
	for i, f := range futures {
		o := batch[i]
		select {
		case <-f.Ok():
			published = append(published, o.id)
		case err := <-f.Err():
			if firstErr == nil {
				firstErr = fmt.Errorf("publish %s on %s: %w", o.id, o.subject, err)
			}
		case <-timeout.C:
			if firstErr == nil {
				firstErr = fmt.Errorf("publish %s on %s: no acknowledgement within %s", o.id, o.subject, r.PublishTimeout)
			}
			return published, firstErr
		case <-ctx.Done():
			if firstErr == nil {
				firstErr = ctx.Err()
			}
			return published, firstErr
		}
	}
	return published, firstErr
}

// prune deletes rows published longer than Retention ago.
func (r *Relay) prune(ctx context.Context) error {
	tag, err := r.pool.Exec(ctx,
		`DELETE FROM outbox WHERE published_at < now() - make_interval(secs => $1)`,
		r.Retention.Seconds())
	if err != nil {
		return fmt.Errorf("delete published rows: %w", err)
	}
	if n := tag.RowsAffected(); n > 0 {
		r.log.DebugContext(ctx, "pruned outbox", "rows", n)
	}
	return nil
}

// ErrPermanent marks a handler error that retrying cannot fix (a malformed
// event): Consume terminates the message instead of redelivering it.
var ErrPermanent = errors.New("permanent event failure")

// Permanent wraps err so that Consume terminates the message.
func Permanent(err error) error { return fmt.Errorf("%w: %w", ErrPermanent, err) }
