// Package postgres stores the callbacks service's data in Postgres (schema
// "callbacks" by default) and embeds its migrations: callback URLs, signing
// keys, the transaction projection, deliveries, attempts and the outbox.
//
// Lock order, kept by every method so that concurrent ones never deadlock
// on each other: transactions rows (in id order), then deliveries, then
// attempts, then tallies (in id order). A tally changes by the deltas of
// the statements that changed deliveries, added under the tally row's lock,
// so concurrent writers never lose each other's changes and no delivery is
// counted again.
package postgres

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Schema is the service's Postgres schema unless PAYGATE_DATABASE_SCHEMA
// names another.
const Schema = "callbacks"

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the service's migrations, at the root of the FS as
// pgdb.Migrate expects.
var Migrations = pgdb.EmbeddedMigrations(migrationFiles, "migrations")

// Store is the Postgres implementation of callback.Store.
type Store struct {
	pool *pgxpool.Pool
}

var _ callback.Store = (*Store)(nil)

// NewStore returns a store on pool (whose search_path is the service's
// schema).
func NewStore(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool}
}

const urlColumns = `id, collab_id, merchant_id, url, is_enabled, max_attempts, add_signature,
	COALESCE(transaction_type, 0), created_at, updated_at`

func scanURL(row pgx.Row) (callback.URL, error) {
	var u callback.URL
	var maxAttempts, typ int16
	err := row.Scan(&u.ID, &u.CollabID, &u.MerchantID, &u.URL, &u.Enabled, &maxAttempts, &u.AddSignature,
		&typ, &u.CreatedAt, &u.UpdatedAt)
	u.MaxAttempts, u.TransactionType = int32(maxAttempts), int32(typ)
	return u, err
}

func collectURLs(rows pgx.Rows) ([]callback.URL, error) {
	urls, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (callback.URL, error) { return scanURL(row) })
	if err != nil {
		return nil, fmt.Errorf("read callback urls: %w", err)
	}
	return urls, nil
}

// nullType stores TypeAll as NULL.
func nullType(t int32) *int16 {
	if t == callback.TypeAll {
		return nil
	}
	v := int16(t)
	return &v
}

// CollabURLs implements callback.Store.
func (s *Store) CollabURLs(ctx context.Context, collabID int32) ([]callback.URL, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+urlColumns+` FROM callback_urls WHERE collab_id = $1 ORDER BY id`, collabID)
	if err != nil {
		return nil, fmt.Errorf("select callback urls of collab %d: %w", collabID, err)
	}
	return collectURLs(rows)
}

// MerchantURLs implements callback.Store.
func (s *Store) MerchantURLs(ctx context.Context, merchantID int32) ([]callback.URL, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+urlColumns+` FROM callback_urls WHERE merchant_id = $1 ORDER BY id`, merchantID)
	if err != nil {
		return nil, fmt.Errorf("select callback urls of merchant %d: %w", merchantID, err)
	}
	return collectURLs(rows)
}

// URL implements callback.Store.
func (s *Store) URL(ctx context.Context, id int64) (callback.URL, error) {
	u, err := scanURL(s.pool.QueryRow(ctx, `SELECT `+urlColumns+` FROM callback_urls WHERE id = $1`, id))
	if err != nil {
		return callback.URL{}, pgdb.Translate(err, "The callback URL")
	}
	return u, nil
}

// CreateURL implements callback.Store.
func (s *Store) CreateURL(ctx context.Context, u callback.URL, change func(callback.URL) *eventsv1.CallbackUrlChanged) (callback.URL, error) {
	var saved callback.URL
	err := pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		saved, err = scanURL(tx.QueryRow(ctx, `
			INSERT INTO callback_urls (collab_id, merchant_id, url, is_enabled, max_attempts, add_signature, transaction_type, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
			RETURNING `+urlColumns,
			u.CollabID, u.MerchantID, u.URL, u.Enabled, u.MaxAttempts, u.AddSignature, nullType(u.TransactionType), u.CreatedAt))
		if err != nil {
			return translateURLWrite(err, fmt.Errorf("insert callback url: %w", err))
		}
		return enqueue(ctx, tx, change(saved))
	})
	return saved, err
}

// UpdateURL implements callback.Store. Pending deliveries of the URL follow
// it: they go to the new address with the new signature setting, and are
// cancelled when it is disabled.
func (s *Store) UpdateURL(ctx context.Context, u callback.URL, change func(before, after callback.URL) *eventsv1.CallbackUrlChanged) (callback.URL, error) {
	var after callback.URL
	err := pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		before, err := scanURL(tx.QueryRow(ctx, `SELECT `+urlColumns+` FROM callback_urls WHERE id = $1 FOR UPDATE`, u.ID))
		if err != nil {
			return pgdb.Translate(err, "The callback URL")
		}
		after, err = scanURL(tx.QueryRow(ctx, `
			UPDATE callback_urls SET collab_id = $2, merchant_id = $3, url = $4, is_enabled = $5, max_attempts = $6,
				add_signature = $7, transaction_type = $8, updated_at = $9
			WHERE id = $1
			RETURNING `+urlColumns,
			u.ID, u.CollabID, u.MerchantID, u.URL, u.Enabled, u.MaxAttempts, u.AddSignature, nullType(u.TransactionType), u.UpdatedAt))
		if err != nil {
			return translateURLWrite(err, fmt.Errorf("update callback url %d: %w", u.ID, err))
		}
		if !after.Enabled {
			if err := cancelPendingOfURL(ctx, tx, u.ID, u.UpdatedAt); err != nil {
				return err
			}
		} else if after.URL != before.URL || after.AddSignature != before.AddSignature {
			if _, err := tx.Exec(ctx, `
				UPDATE deliveries SET url = $2, sign = $3, updated_at = $4
				WHERE callback_url_id = $1 AND status = 'pending'`, u.ID, after.URL, after.AddSignature, u.UpdatedAt); err != nil {
				return fmt.Errorf("move pending deliveries of callback url %d: %w", u.ID, err)
			}
		}
		return enqueue(ctx, tx, change(before, after))
	})
	return after, err
}

// translateURLWrite turns the one-enabled-row-per-(collab, url) index's
// violation into a conflict that says so; other errors stay wrapped.
func translateURLWrite(err, wrapped error) error {
	if code, constraint, ok := pgdb.ConstraintViolation(err); ok && code == "23505" && constraint == "callback_urls_enabled_url_key" {
		return apperr.New(apperr.KindConflict, err, "This callback URL is already enabled for the collaboration.")
	}
	return wrapped
}

// DeleteURL implements callback.Store.
func (s *Store) DeleteURL(ctx context.Context, id int64, at time.Time, change func(before callback.URL) *eventsv1.CallbackUrlChanged) error {
	return pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		before, err := scanURL(tx.QueryRow(ctx, `DELETE FROM callback_urls WHERE id = $1 RETURNING `+urlColumns, id))
		if err != nil {
			return pgdb.Translate(err, "The callback URL")
		}
		if err := cancelPendingOfURL(ctx, tx, id, at); err != nil {
			return err
		}
		return enqueue(ctx, tx, change(before))
	})
}

// cancelPendingOfURL cancels a URL's pending deliveries and writes the
// tallies that changed.
func cancelPendingOfURL(ctx context.Context, tx pgx.Tx, urlID int64, at time.Time) error {
	rows, err := tx.Query(ctx, `
		UPDATE deliveries SET status = 'cancelled', lease_id = NULL, lease_until = NULL, updated_at = $2
		WHERE callback_url_id = $1 AND status = 'pending'
		RETURNING transaction_id, merchant_id`, urlID, at)
	if err != nil {
		return fmt.Errorf("cancel deliveries of callback url %d: %w", urlID, err)
	}
	d := deltas{}
	var txID int64
	var merchantID int32
	if _, err := pgx.ForEachRow(rows, []any{&txID, &merchantID}, func() error {
		d.add(txID, merchantID, 0, -1, 0)
		return nil
	}); err != nil {
		return fmt.Errorf("cancel deliveries of callback url %d: %w", urlID, err)
	}
	return d.write(ctx, tx, at)
}

// lockTransactions locks the projection rows of ids in id order.
func lockTransactions(ctx context.Context, tx pgx.Tx, ids []int64) error {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	if _, err := tx.Exec(ctx, `SELECT id FROM transactions WHERE id = ANY($1) ORDER BY id FOR UPDATE`, sorted); err != nil {
		return fmt.Errorf("lock transactions: %w", err)
	}
	return nil
}

// deltas are the changes to transactions' tallies made in one database
// transaction, by transaction id.
type deltas map[int64]*delta

type delta struct {
	merchantID               int32
	delivered, total, failed int32
}

func (d deltas) add(txID int64, merchantID int32, delivered, total, failed int32) {
	x := d[txID]
	if x == nil {
		x = &delta{merchantID: merchantID}
		d[txID] = x
	}
	x.delivered += delivered
	x.total += total
	x.failed += failed
}

// write adds the deltas to the tallies (in transaction id order, so that
// concurrent writers lock tally rows in one order), with a new version for
// each tally that changed, and writes their CallbackDeliveryChanged events.
// Adding deltas under the tally row's lock keeps concurrent writers from
// losing each other's changes.
func (d deltas) write(ctx context.Context, tx pgx.Tx, at time.Time) error {
	var ids []int64
	var merchants, delivered, total, failed []int32
	for _, id := range keysOf(d) {
		x := d[id]
		if x.delivered == 0 && x.total == 0 && x.failed == 0 {
			continue
		}
		ids, merchants = append(ids, id), append(merchants, x.merchantID)
		delivered, total, failed = append(delivered, x.delivered), append(total, x.total), append(failed, x.failed)
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `
		INSERT INTO tallies AS t (transaction_id, merchant_id, delivered, total, failed, version, updated_at)
		SELECT id, m, dd, tt, ff, 1, $6
		FROM unnest($1::bigint[], $2::int[], $3::int[], $4::int[], $5::int[]) AS u(id, m, dd, tt, ff)
		ORDER BY id
		ON CONFLICT (transaction_id) DO UPDATE
		SET delivered = t.delivered + excluded.delivered, total = t.total + excluded.total,
			failed = t.failed + excluded.failed, version = t.version + 1, updated_at = excluded.updated_at
		RETURNING t.transaction_id, t.merchant_id, t.delivered, t.total, t.failed, t.version`,
		ids, merchants, delivered, total, failed, at)
	if err != nil {
		return fmt.Errorf("write tallies: %w", err)
	}
	tallies, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (callback.Tally, error) {
		t := callback.Tally{At: at}
		err := row.Scan(&t.TransactionID, &t.MerchantID, &t.Delivered, &t.Total, &t.Failed, &t.Version)
		return t, err
	})
	if err != nil {
		return fmt.Errorf("write tallies: %w", err)
	}
	evs := make([]proto.Message, len(tallies))
	for i, t := range tallies {
		evs[i] = t.Event()
	}
	if _, err := bus.EnqueueBatch(ctx, tx, evs...); err != nil {
		return fmt.Errorf("write tally events: %w", err)
	}
	return nil
}

func enqueue(ctx context.Context, tx pgx.Tx, ev *eventsv1.CallbackUrlChanged) error {
	_, err := bus.Enqueue(ctx, tx, bus.Subject(ev), ev)
	return err
}

const transactionColumns = `id, merchant_id, collab_id, type, status, callbacks_canceled, state`

func scanTransaction(row pgx.Row) (callback.Transaction, error) {
	var t callback.Transaction
	var typ, status int16
	var state []byte
	if err := row.Scan(&t.ID, &t.MerchantID, &t.CollabID, &typ, &status, &t.CallbacksCanceled, &state); err != nil {
		return t, err
	}
	t.Type, t.Status = int32(typ), int32(status)
	if err := json.Unmarshal(state, &t.Data); err != nil {
		return t, fmt.Errorf("state of transaction %d: %w", t.ID, err)
	}
	return t, nil
}

// Transaction implements callback.Store.
func (s *Store) Transaction(ctx context.Context, id int64) (callback.Transaction, error) {
	t, err := scanTransaction(s.pool.QueryRow(ctx, `SELECT `+transactionColumns+` FROM transactions WHERE id = $1`, id))
	if err != nil {
		return t, pgdb.Translate(err, "The transaction")
	}
	return t, nil
}

// ApplyTransactionEvents implements callback.Store.
//
// Rows of transactions seen for the first time are inserted first, all in
// one statement in id order, and then every row of the batch is locked in id
// order: two batches (the finalized and the updated consumer, or two
// replicas) touching the same transactions then wait for each other instead
// of deadlocking. The events' statements go in two pipelined round trips
// (projection updates, then cancels and deliveries), so a batch costs a
// handful of round trips whatever its size.
func (s *Store) ApplyTransactionEvents(ctx context.Context, events []callback.TransactionEvent, at time.Time) ([]callback.Delivery, error) {
	var fresh []callback.Delivery
	err := pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		fresh = nil
		firsts, err := insertFirstSightings(ctx, tx, events, at)
		if err != nil {
			return err
		}
		// The rows just inserted are locked already; lock the others.
		var seen []int64
		first := make([]bool, len(events))
		for i, ev := range events {
			first[i] = firsts[ev.State.ID]
			delete(firsts, ev.State.ID)
			if !first[i] {
				seen = append(seen, ev.State.ID)
			}
		}
		if len(seen) > 0 {
			if err := lockTransactions(ctx, tx, seen); err != nil {
				return err
			}
		}
		projections, cancelled, err := project(ctx, tx, events, first, at)
		if err != nil {
			return err
		}
		deliver := make([]bool, len(events))
		var collabs []int32
		for i, ev := range events {
			if deliver[i] = callback.ShouldDeliver(ev, first[i], cancelled[i]); deliver[i] {
				collabs = append(collabs, ev.State.CollabID)
			}
		}
		urls, err := enabledURLs(ctx, tx, collabs)
		if err != nil {
			return err
		}

		var cancels []int64
		for i, ev := range events {
			st := ev.State
			if cancelled[i] {
				cancels = append(cancels, st.ID)
			}
			if !deliver[i] {
				continue
			}
			var body []byte
			for _, u := range urls[st.CollabID] {
				if u.CreatedAt.After(projections[i].stateAt.Add(urlGrace)) || !u.Matches(st.Type) {
					continue
				}
				if body == nil {
					if body, err = callback.NewBody(st.Data(), at); err != nil {
						return err
					}
				}
				fresh = append(fresh, callback.Delivery{
					WebhookID: callback.WebhookIDFor(ev.EventID, u.ID, projections[i].stateAt),
					EventID:   ev.EventID, CallbackURLID: u.ID,
					TransactionID: st.ID, MerchantID: st.MerchantID,
					URL: u.URL, Body: body, Sign: u.AddSignature, MaxAttempts: u.MaxAttempts,
				})
			}
		}
		if fresh, err = withoutStored(ctx, tx, fresh); err != nil {
			return err
		}
		d := deltas{}
		if err := cancelPending(ctx, tx, cancels, at, d); err != nil {
			return err
		}
		return d.write(ctx, tx, at)
	})
	return fresh, err
}

// withoutStored drops the deliveries stored already for their event and
// URL (an event delivered again), and repeats within ds.
func withoutStored(ctx context.Context, tx pgx.Tx, ds []callback.Delivery) ([]callback.Delivery, error) {
	if len(ds) == 0 {
		return ds, nil
	}
	type key struct {
		event string
		url   int64
	}
	events, urls := make([]string, len(ds)), make([]int64, len(ds))
	for i, dl := range ds {
		events[i], urls[i] = dl.EventID, dl.CallbackURLID
	}
	rows, err := tx.Query(ctx, `
		SELECT d.event_id, d.callback_url_id
		FROM unnest($1::text[], $2::bigint[]) AS x(e, u)
		JOIN deliveries d ON d.event_id = x.e AND d.callback_url_id = x.u`, events, urls)
	if err != nil {
		return nil, fmt.Errorf("select stored deliveries: %w", err)
	}
	skip := map[key]bool{}
	var k key
	if _, err := pgx.ForEachRow(rows, []any{&k.event, &k.url}, func() error {
		skip[k] = true
		return nil
	}); err != nil {
		return nil, fmt.Errorf("select stored deliveries: %w", err)
	}
	out := ds[:0]
	for _, dl := range ds {
		k := key{dl.EventID, dl.CallbackURLID}
		if !skip[k] {
			skip[k] = true
			out = append(out, dl)
		}
	}
	return out, nil
}

const urlGrace = time.Minute

// projection is a transaction's projection row as an event sets it.
type projection struct {
	state   []byte
	stateAt time.Time
}

func projectionOf(ev callback.TransactionEvent, at time.Time) (projection, error) {
	state, err := json.Marshal(ev.State.Data())
	if err != nil {
		return projection{}, fmt.Errorf("state of transaction %d: %w", ev.State.ID, err)
	}
	stateAt := ev.State.UpdatedAt
	if stateAt.IsZero() {
		stateAt = at
	}
	return projection{state: state, stateAt: stateAt}, nil
}

// insertFirstSightings inserts, in id order, the projection rows of the
// transactions of events the service has not seen, each from its first event
// in the batch, and returns the ids it inserted.
func insertFirstSightings(ctx context.Context, tx pgx.Tx, events []callback.TransactionEvent, at time.Time) (map[int64]bool, error) {
	firstOf := map[int64]callback.TransactionEvent{}
	for _, ev := range events {
		if _, ok := firstOf[ev.State.ID]; !ok {
			firstOf[ev.State.ID] = ev
		}
	}
	n := len(firstOf)
	var (
		ids                = make([]int64, 0, n)
		merchants, collabs = make([]int32, 0, n), make([]int32, 0, n)
		types, statuses    = make([]int32, 0, n), make([]int32, 0, n)
		cancelled          = make([]bool, 0, n)
		states             = make([]string, 0, n)
		stateAts           = make([]time.Time, 0, n)
	)
	for _, id := range keysOf(firstOf) {
		ev := firstOf[id]
		p, err := projectionOf(ev, at)
		if err != nil {
			return nil, err
		}
		st := ev.State
		ids, merchants, collabs = append(ids, id), append(merchants, st.MerchantID), append(collabs, st.CollabID)
		types, statuses, cancelled = append(types, st.Type), append(statuses, st.Status), append(cancelled, st.CallbacksCanceled)
		states, stateAts = append(states, string(p.state)), append(stateAts, p.stateAt)
	}
	rows, err := tx.Query(ctx, `
		INSERT INTO transactions (id, merchant_id, collab_id, type, status, callbacks_canceled, state, state_updated_at, updated_at)
		SELECT id, m, c, t, s, x, st::jsonb, sa, $9
		FROM unnest($1::bigint[], $2::int[], $3::int[], $4::smallint[], $5::smallint[], $6::boolean[], $7::text[], $8::timestamptz[])
			AS u(id, m, c, t, s, x, st, sa)
		ORDER BY id
		ON CONFLICT (id) DO NOTHING
		RETURNING id`, ids, merchants, collabs, types, statuses, cancelled, states, stateAts, at)
	if err != nil {
		return nil, fmt.Errorf("insert new transactions: %w", err)
	}
	inserted, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("insert new transactions: %w", err)
	}
	out := make(map[int64]bool, len(inserted))
	for _, id := range inserted {
		out[id] = true
	}
	return out, nil
}

// project applies each event, in order, to its (locked) projection row in
// one round trip: a newer state replaces an older one, a cancel is kept. An
// event that made its row (first) is already in it. It returns each event's
// projection and whether the transaction's callbacks are cancelled after it.
func project(ctx context.Context, tx pgx.Tx, events []callback.TransactionEvent, first []bool, at time.Time) ([]projection, []bool, error) {
	projections := make([]projection, len(events))
	cancelled := make([]bool, len(events))
	b := &pgx.Batch{}
	var queued []int
	for i, ev := range events {
		p, err := projectionOf(ev, at)
		if err != nil {
			return nil, nil, err
		}
		projections[i] = p
		st := ev.State
		if first[i] {
			cancelled[i] = st.CallbacksCanceled
			continue
		}
		queued = append(queued, i)
		b.Queue(`
			UPDATE transactions t SET
				status = CASE WHEN $3 >= t.state_updated_at THEN $2 ELSE t.status END,
				state = CASE WHEN $3 >= t.state_updated_at THEN $4::jsonb ELSE t.state END,
				state_updated_at = GREATEST(t.state_updated_at, $3),
				callbacks_canceled = t.callbacks_canceled OR $5,
				updated_at = $6
			WHERE id = $1
			RETURNING callbacks_canceled`,
			st.ID, st.Status, p.stateAt, string(p.state), st.CallbacksCanceled, at)
	}
	if b.Len() == 0 {
		return projections, cancelled, nil
	}
	br := tx.SendBatch(ctx, b)
	for _, i := range queued {
		if err := br.QueryRow().Scan(&cancelled[i]); err != nil {
			_ = br.Close()
			return nil, nil, fmt.Errorf("project transaction %d: %w", events[i].State.ID, err)
		}
	}
	if err := br.Close(); err != nil {
		return nil, nil, fmt.Errorf("project transactions: %w", err)
	}
	return projections, cancelled, nil
}

// enabledURLs returns the enabled callback URLs of collabs by collab.
func enabledURLs(ctx context.Context, tx pgx.Tx, collabs []int32) (map[int32][]callback.URL, error) {
	out := map[int32][]callback.URL{}
	if len(collabs) == 0 {
		return out, nil
	}
	rows, err := tx.Query(ctx, `SELECT `+urlColumns+` FROM callback_urls WHERE collab_id = ANY($1) AND is_enabled ORDER BY id`, collabs)
	if err != nil {
		return nil, fmt.Errorf("select callback urls: %w", err)
	}
	urls, err := collectURLs(rows)
	if err != nil {
		return nil, err
	}
	for _, u := range urls {
		out[u.CollabID] = append(out[u.CollabID], u)
	}
	return out, nil
}

// deliveryRows are deliveries to insert in one statement, with their
// events' bodies.
type deliveryRows struct {
	webhookIDs, eventIDs, targets []string
	txIDs, urlIDs                 []int64
	merchants, maxes              []int32
	signs                         []bool
	bodyEvents, bodies            []string
}

// add adds one delivery of data per URL of urls that matches the
// transaction type, under eventID.
func (r *deliveryRows) add(eventID string, transactionID int64, merchantID, typ int32, data callback.Data, urls []callback.URL, at time.Time) error {
	added := false
	for _, u := range urls {
		if !u.Matches(typ) {
			continue
		}
		id, err := callback.NewWebhookID()
		if err != nil {
			return err
		}
		r.webhookIDs, r.eventIDs, r.targets = append(r.webhookIDs, id), append(r.eventIDs, eventID), append(r.targets, u.URL)
		r.txIDs, r.urlIDs = append(r.txIDs, transactionID), append(r.urlIDs, u.ID)
		r.merchants, r.maxes, r.signs = append(r.merchants, merchantID), append(r.maxes, u.MaxAttempts), append(r.signs, u.AddSignature)
		added = true
	}
	if !added {
		return nil
	}
	body, err := callback.NewBody(data, at)
	if err != nil {
		return err
	}
	r.bodyEvents, r.bodies = append(r.bodyEvents, eventID), append(r.bodies, string(body))
	return nil
}

// insert stores the bodies (a redelivered event keeps its first) and the
// deliveries, skipping those an event made before, counts what it made in
// d, and returns how many.
func (r *deliveryRows) insert(ctx context.Context, tx pgx.Tx, at time.Time, d deltas) (int, error) {
	if len(r.webhookIDs) == 0 {
		return 0, nil
	}
	rows, err := tx.Query(ctx, `
		WITH body AS (
			INSERT INTO delivery_bodies (event_id, body)
			SELECT * FROM unnest($1::text[], $2::text[])
			ON CONFLICT (event_id) DO NOTHING)
		INSERT INTO deliveries (webhook_id, event_id, transaction_id, merchant_id, callback_url_id, url, sign,
			max_attempts, status, next_attempt_at, created_at, updated_at)
		SELECT w, e, t, m, u, target, sign, mx, 'pending', $3, $3, $3
		FROM unnest($4::text[], $5::text[], $6::bigint[], $7::int[], $8::bigint[], $9::text[], $10::boolean[], $11::int[])
			AS x(w, e, t, m, u, target, sign, mx)
		ON CONFLICT (event_id, callback_url_id) DO NOTHING
		RETURNING transaction_id, merchant_id`,
		r.bodyEvents, r.bodies, at, r.webhookIDs, r.eventIDs, r.txIDs, r.merchants, r.urlIDs, r.targets, r.signs, r.maxes)
	if err != nil {
		return 0, fmt.Errorf("insert deliveries: %w", err)
	}
	made := 0
	var txID int64
	var merchantID int32
	if _, err := pgx.ForEachRow(rows, []any{&txID, &merchantID}, func() error {
		d.add(txID, merchantID, 0, 1, 0)
		made++
		return nil
	}); err != nil {
		return 0, fmt.Errorf("insert deliveries: %w", err)
	}
	return made, nil
}

// cancelPending cancels the pending deliveries of transactionIDs and counts
// them in d.
func cancelPending(ctx context.Context, tx pgx.Tx, transactionIDs []int64, at time.Time, d deltas) error {
	if len(transactionIDs) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `
		UPDATE deliveries SET status = 'cancelled', lease_id = NULL, lease_until = NULL, updated_at = $2
		WHERE transaction_id = ANY ($1) AND status = 'pending'
		RETURNING transaction_id, merchant_id`, transactionIDs, at)
	if err != nil {
		return fmt.Errorf("cancel deliveries: %w", err)
	}
	var txID int64
	var merchantID int32
	if _, err := pgx.ForEachRow(rows, []any{&txID, &merchantID}, func() error {
		d.add(txID, merchantID, 0, -1, 0)
		return nil
	}); err != nil {
		return fmt.Errorf("cancel deliveries: %w", err)
	}
	return nil
}

// Enqueue implements callback.Store.
func (s *Store) Enqueue(ctx context.Context, transactionID int64, eventID string, at time.Time, check func(callback.Transaction) error) (int, error) {
	made := 0
	err := pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		t, err := scanTransaction(tx.QueryRow(ctx, `SELECT `+transactionColumns+` FROM transactions WHERE id = $1 FOR UPDATE`, transactionID))
		if err != nil {
			return pgdb.Translate(err, "The transaction")
		}
		if err := check(t); err != nil {
			return err
		}
		urls, err := enabledURLs(ctx, tx, []int32{t.CollabID})
		if err != nil {
			return err
		}
		var rows deliveryRows
		if err := rows.add(eventID, t.ID, t.MerchantID, t.Type, t.Data, urls[t.CollabID], at); err != nil {
			return err
		}
		d := deltas{}
		if made, err = rows.insert(ctx, tx, at, d); err != nil {
			return err
		}
		return d.write(ctx, tx, at)
	})
	return made, err
}

const attemptColumns = `a.id, a.created_at, a.url, b.body, a.response_code, a.status, d.webhook_id,
	a.attempt_number, a.error_message, a.transaction_id, a.merchant_id`

func scanAttempt(row pgx.Row) (callback.Attempt, error) {
	var a callback.Attempt
	var status string
	err := row.Scan(&a.ID, &a.CreatedAt, &a.URL, &a.RequestBody, &a.ResponseCode, &status, &a.WebhookID,
		&a.Number, &a.ErrorMessage, &a.TransactionID, &a.MerchantID)
	a.Status = callback.AttemptStatus(status)
	return a, err
}

// Attempts implements callback.Store.
func (s *Store) Attempts(ctx context.Context, transactionID int64, page, take int32) ([]callback.Attempt, int64, error) {
	var total int64
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM attempts WHERE transaction_id = $1`, transactionID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count attempts of transaction %d: %w", transactionID, err)
	}
	rows, err := s.pool.Query(ctx, `
		SELECT `+attemptColumns+`
		FROM attempts a JOIN deliveries d ON d.id = a.delivery_id JOIN delivery_bodies b ON b.event_id = d.event_id
		WHERE a.transaction_id = $1
		ORDER BY a.id DESC
		LIMIT $2 OFFSET $3`, transactionID, take, int64(page-1)*int64(take))
	if err != nil {
		return nil, 0, fmt.Errorf("select attempts of transaction %d: %w", transactionID, err)
	}
	attempts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (callback.Attempt, error) { return scanAttempt(row) })
	if err != nil {
		return nil, 0, fmt.Errorf("read attempts of transaction %d: %w", transactionID, err)
	}
	return attempts, total, nil
}

// Attempt implements callback.Store.
func (s *Store) Attempt(ctx context.Context, id int64) (callback.Attempt, error) {
	a, err := scanAttempt(s.pool.QueryRow(ctx, `
		SELECT `+attemptColumns+` FROM attempts a JOIN deliveries d ON d.id = a.delivery_id JOIN delivery_bodies b ON b.event_id = d.event_id WHERE a.id = $1`, id))
	if err != nil {
		return a, pgdb.Translate(err, "The callback attempt")
	}
	return a, nil
}

// RetryAttempt implements callback.Store. The delivery goes to its callback
// URL's current address with its current signature setting.
func (s *Store) RetryAttempt(ctx context.Context, id int64, at time.Time, check func(callback.RetryTarget) error) (callback.Attempt, error) {
	var a callback.Attempt
	err := pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		var transactionID int64
		if err := tx.QueryRow(ctx, `SELECT transaction_id FROM attempts WHERE id = $1`, id).Scan(&transactionID); err != nil {
			return pgdb.Translate(err, "The callback attempt")
		}
		t, err := scanTransaction(tx.QueryRow(ctx, `SELECT `+transactionColumns+` FROM transactions WHERE id = $1 FOR UPDATE`, transactionID))
		if err != nil {
			return pgdb.Translate(err, "The transaction")
		}
		var deliveryID int64
		var status string
		var urlActive bool
		err = tx.QueryRow(ctx, `
			SELECT d.id, d.status, EXISTS (SELECT 1 FROM callback_urls u WHERE u.id = d.callback_url_id AND u.is_enabled)
			FROM attempts a JOIN deliveries d ON d.id = a.delivery_id JOIN delivery_bodies b ON b.event_id = d.event_id
			WHERE a.id = $1
			FOR UPDATE OF d`, id).Scan(&deliveryID, &status, &urlActive)
		if err != nil {
			return pgdb.Translate(err, "The callback attempt")
		}
		a, err = scanAttempt(tx.QueryRow(ctx, `
			SELECT `+attemptColumns+` FROM attempts a JOIN deliveries d ON d.id = a.delivery_id JOIN delivery_bodies b ON b.event_id = d.event_id WHERE a.id = $1 FOR UPDATE OF a`, id))
		if err != nil {
			return pgdb.Translate(err, "The callback attempt")
		}
		if err := check(callback.RetryTarget{Attempt: a, Transaction: t, Delivery: callback.DeliveryStatus(status), URLActive: urlActive}); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `
			UPDATE deliveries d SET status = 'pending', max_attempts = GREATEST(d.max_attempts, d.attempts_made + 1),
				next_attempt_at = $2, lease_id = NULL, lease_until = NULL, updated_at = $2, url = u.url, sign = u.add_signature
			FROM callback_urls u
			WHERE d.id = $1 AND u.id = d.callback_url_id`, deliveryID, at); err != nil {
			return fmt.Errorf("requeue delivery %d: %w", deliveryID, err)
		}
		if _, err := tx.Exec(ctx, `UPDATE attempts SET status = 'Retried' WHERE id = $1`, id); err != nil {
			return fmt.Errorf("mark attempt %d retried: %w", id, err)
		}
		a.Status = callback.AttemptRetried
		// The delivery went from failed back to pending.
		return deltas{transactionID: {merchantID: a.MerchantID, failed: -1}}.write(ctx, tx, at)
	})
	return a, err
}

// ClaimDue implements callback.DeliveryStore.
func (s *Store) ClaimDue(ctx context.Context, now time.Time, limit int, leaseUntil time.Time) ([]callback.Delivery, error) {
	lease, err := uuid.NewV7()
	if err != nil {
		return nil, fmt.Errorf("lease id: %w", err)
	}
	rows, err := s.pool.Query(ctx, `
		WITH claimed AS (
			UPDATE deliveries d SET lease_id = $3, lease_until = $4
			WHERE d.id = ANY (ARRAY(
				SELECT id FROM deliveries
				WHERE status = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)
				ORDER BY next_attempt_at
				LIMIT $2
				FOR UPDATE SKIP LOCKED))
			RETURNING d.id, d.webhook_id, d.transaction_id, d.merchant_id, d.url, d.event_id, d.sign, d.attempts_made, d.max_attempts)
		SELECT c.id, c.webhook_id, c.transaction_id, c.merchant_id, c.url, b.body, c.sign, c.attempts_made, c.max_attempts
		FROM claimed c JOIN delivery_bodies b ON b.event_id = c.event_id`,
		now, limit, lease, leaseUntil)
	if err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	ds, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (callback.Delivery, error) {
		d := callback.Delivery{Lease: lease.String()}
		var body string
		err := row.Scan(&d.ID, &d.WebhookID, &d.TransactionID, &d.MerchantID, &d.URL, &body, &d.Sign, &d.AttemptsMade, &d.MaxAttempts)
		d.Body = []byte(body)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	return ds, nil
}

// RecordResults implements callback.DeliveryStore.
func (s *Store) RecordResults(ctx context.Context, results []callback.Result, at time.Time) error {
	var claimed, fresh []callback.Result
	for _, r := range results {
		if r.Delivery.ID == 0 {
			fresh = append(fresh, r)
		} else {
			claimed = append(claimed, r)
		}
	}
	if len(results) == 0 {
		return nil
	}
	return pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		d := deltas{}
		if err := recordFresh(ctx, tx, fresh, at, d); err != nil {
			return err
		}
		if err := recordClaimed(ctx, tx, claimed, at, d); err != nil {
			return err
		}
		return d.write(ctx, tx, at)
	})
}

// recordFresh stores fresh deliveries as their results leave them, with
// their bodies and first attempts, in one statement, and adds their tally
// deltas to d.
func recordFresh(ctx context.Context, tx pgx.Tx, results []callback.Result, at time.Time, d deltas) error {
	if len(results) == 0 {
		return nil
	}
	n := len(results)
	var (
		webhookIDs, eventIDs, urls = make([]string, n), make([]string, n), make([]string, n)
		txIDs, urlIDs              = make([]int64, n), make([]int64, n)
		merchants, maxes, made     = make([]int32, n), make([]int32, n), make([]int32, n)
		signs                      = make([]bool, n)
		statuses, attemptStatus    = make([]string, n), make([]string, n)
		codes                      = make([]int32, n)
		nexts, ats                 = make([]time.Time, n), make([]time.Time, n)
		errs                       = make([]string, n)
		bodyEvents, bodies         []string
		pending                    []int64
	)
	hasBody := map[string]bool{}
	for i, r := range results {
		dl := r.Delivery
		webhookIDs[i], eventIDs[i], urls[i] = dl.WebhookID, dl.EventID, dl.URL
		txIDs[i], urlIDs[i], merchants[i], maxes[i], signs[i] = dl.TransactionID, dl.CallbackURLID, dl.MerchantID, dl.MaxAttempts, dl.Sign
		statuses[i], attemptStatus[i], codes[i] = string(r.Status), string(r.Attempt), r.ResponseCode
		nexts[i], ats[i], errs[i] = r.NextAttemptAt, r.At, r.ErrorMessage
		if r.Attempt != "" {
			made[i] = 1
		}
		if !hasBody[dl.EventID] {
			hasBody[dl.EventID] = true
			bodyEvents, bodies = append(bodyEvents, dl.EventID), append(bodies, string(dl.Body))
		}
		if r.Status == callback.DeliveryPending {
			pending = append(pending, dl.TransactionID)
		}
	}
	// A cancel locks its transaction before it cancels pending deliveries:
	// locking those that get one here first means a cancel either sees the
	// delivery or is seen by the insert below.
	if len(pending) > 0 {
		slices.Sort(pending)
		if _, err := tx.Exec(ctx, `SELECT 1 FROM transactions WHERE id = ANY($1) ORDER BY id FOR SHARE`, slices.Compact(pending)); err != nil {
			return fmt.Errorf("lock transactions: %w", err)
		}
	}
	rows, err := tx.Query(ctx, `
		WITH body AS (
			INSERT INTO delivery_bodies (event_id, body)
			SELECT * FROM unnest($1::text[], $2::text[])
			ON CONFLICT (event_id) DO NOTHING),
		x AS (
			SELECT * FROM unnest($4::text[], $5::text[], $6::bigint[], $7::int[], $8::bigint[], $9::text[], $10::boolean[],
				$11::int[], $12::int[], $13::text[], $14::timestamptz[], $15::timestamptz[], $16::int[], $17::text[], $18::text[])
				AS x(w, e, t, m, u, target, sign, mx, made, status, next, at, code, astatus, err)),
		ins AS (
			INSERT INTO deliveries (webhook_id, event_id, transaction_id, merchant_id, callback_url_id, url, sign,
				max_attempts, attempts_made, status, next_attempt_at, created_at, updated_at)
			SELECT x.w, x.e, x.t, x.m, x.u, x.target, x.sign, x.mx, x.made,
				CASE WHEN x.status = 'pending' AND tr.callbacks_canceled THEN 'cancelled' ELSE x.status END,
				x.next, $3, $3
			FROM x JOIN transactions tr ON tr.id = x.t
			ON CONFLICT (event_id, callback_url_id) DO NOTHING
			RETURNING id, event_id, callback_url_id, transaction_id, merchant_id, status),
		att AS (
			INSERT INTO attempts (delivery_id, transaction_id, merchant_id, created_at, url, response_code, status, attempt_number, error_message)
			SELECT ins.id, ins.transaction_id, ins.merchant_id, x.at, x.target, x.code, x.astatus, 1, x.err
			FROM ins JOIN x ON x.e = ins.event_id AND x.u = ins.callback_url_id
			WHERE x.astatus <> '')
		SELECT transaction_id, merchant_id, status FROM ins`,
		bodyEvents, bodies, at,
		webhookIDs, eventIDs, txIDs, merchants, urlIDs, urls, signs, maxes, made, statuses, nexts, ats, codes, attemptStatus, errs)
	if err != nil {
		return fmt.Errorf("insert fresh deliveries: %w", err)
	}
	if err := addSettled(rows, d, 1); err != nil {
		return fmt.Errorf("insert fresh deliveries: %w", err)
	}
	return nil
}

// addSettled adds to d the tally deltas of rows of deliveries (transaction,
// merchant, status) that were stored (total 1) or changed (total 0).
func addSettled(rows pgx.Rows, d deltas, total int32) error {
	var txID int64
	var merchantID int32
	var status string
	_, err := pgx.ForEachRow(rows, []any{&txID, &merchantID, &status}, func() error {
		switch callback.DeliveryStatus(status) {
		case callback.DeliveryDelivered:
			d.add(txID, merchantID, 1, total, 0)
		case callback.DeliveryFailed:
			d.add(txID, merchantID, 0, total, 1)
		case callback.DeliveryPending:
			d.add(txID, merchantID, 0, total, 0)
		}
		return nil
	})
	return err
}

// recordClaimed applies the results of claimed deliveries still under
// their leases, stores their attempts, and adds their tally deltas to d.
func recordClaimed(ctx context.Context, tx pgx.Tx, results []callback.Result, at time.Time, d deltas) error {
	if len(results) == 0 {
		return nil
	}
	n := len(results)
	var (
		ids, txIDs     = make([]int64, n), make([]int64, n)
		merchants      = make([]int32, n)
		leases         = make([]string, n)
		statuses       = make([]string, n)
		attemptStatus  = make([]string, n)
		numbers, codes = make([]int32, n), make([]int32, n)
		nexts, ats     = make([]time.Time, n), make([]time.Time, n)
		urls, errs     = make([]string, n), make([]string, n)
	)
	for i, r := range results {
		ids[i], txIDs[i], merchants[i], leases[i] = r.Delivery.ID, r.Delivery.TransactionID, r.Delivery.MerchantID, r.Delivery.Lease
		statuses[i], attemptStatus[i] = string(r.Status), string(r.Attempt)
		numbers[i], codes[i], nexts[i], ats[i] = r.Number(), r.ResponseCode, r.NextAttemptAt, r.At
		urls[i], errs[i] = r.Delivery.URL, r.ErrorMessage
	}
	rows, err := tx.Query(ctx, `
		UPDATE deliveries d
		SET status = r.status, attempts_made = r.n, next_attempt_at = r.next, lease_id = NULL, lease_until = NULL, updated_at = $1
		FROM unnest($2::bigint[], $3::text[], $4::text[], $5::int[], $6::timestamptz[]) AS r(id, lease, status, n, next)
		WHERE d.id = ANY ($2) AND d.id = r.id AND d.lease_id = r.lease::uuid AND d.status = 'pending'
		RETURNING d.transaction_id, d.merchant_id, d.status`,
		at, ids, leases, statuses, numbers, nexts)
	if err != nil {
		return fmt.Errorf("update deliveries: %w", err)
	}
	if err := addSettled(rows, d, 0); err != nil {
		return fmt.Errorf("update deliveries: %w", err)
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO attempts (delivery_id, transaction_id, merchant_id, created_at, url, response_code, status, attempt_number, error_message)
		SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::timestamptz[], $5::text[], $6::int[], $7::text[], $8::int[], $9::text[])`,
		ids, txIDs, merchants, ats, urls, codes, attemptStatus, numbers, errs); err != nil {
		return fmt.Errorf("insert attempts: %w", err)
	}
	return nil
}

// SealedKeys implements callback.SecretStore.
func (s *Store) SealedKeys(ctx context.Context, merchantIDs []int32) (map[int32][]byte, error) {
	rows, err := s.pool.Query(ctx, `SELECT merchant_id, sealed FROM signing_secrets WHERE merchant_id = ANY($1)`, merchantIDs)
	if err != nil {
		return nil, fmt.Errorf("select signing keys: %w", err)
	}
	keys := map[int32][]byte{}
	var id int32
	var sealed []byte
	if _, err := pgx.ForEachRow(rows, []any{&id, &sealed}, func() error {
		keys[id] = slices.Clone(sealed)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read signing keys: %w", err)
	}
	return keys, nil
}

// AddSealedKey implements callback.SecretStore.
func (s *Store) AddSealedKey(ctx context.Context, merchantID int32, sealed []byte, at time.Time) ([]byte, error) {
	if _, err := s.pool.Exec(ctx, `
		INSERT INTO signing_secrets (merchant_id, sealed, created_at) VALUES ($1, $2, $3)
		ON CONFLICT (merchant_id) DO NOTHING`, merchantID, sealed, at); err != nil {
		return nil, fmt.Errorf("insert signing key of merchant %d: %w", merchantID, err)
	}
	var stored []byte
	if err := s.pool.QueryRow(ctx, `SELECT sealed FROM signing_secrets WHERE merchant_id = $1`, merchantID).Scan(&stored); err != nil {
		return nil, fmt.Errorf("select signing key of merchant %d: %w", merchantID, err)
	}
	return stored, nil
}

// ReplaceSealedKey implements callback.SecretStore.
func (s *Store) ReplaceSealedKey(ctx context.Context, merchantID int32, sealed []byte, at time.Time) error {
	if _, err := s.pool.Exec(ctx, `
		INSERT INTO signing_secrets (merchant_id, sealed, created_at) VALUES ($1, $2, $3)
		ON CONFLICT (merchant_id) DO UPDATE SET sealed = excluded.sealed, rotated_at = excluded.created_at`,
		merchantID, sealed, at); err != nil {
		return fmt.Errorf("replace signing key of merchant %d: %w", merchantID, err)
	}
	return nil
}

// keysOf returns m's keys in order.
func keysOf[V any](m map[int64]V) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
