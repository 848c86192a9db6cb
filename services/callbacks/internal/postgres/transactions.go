package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/internal/pgdb"
)

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
		// The enabled URLs of the collabs whose events may call for
		// deliveries (a superset of those ShouldDeliver approves once the
		// projection is applied) are read in the round trip of the insert.
		var maybe []int32
		for _, ev := range events {
			if ev.Finalized && callback.Final(ev.State.Status) && !ev.MerchantCallbacksOff {
				maybe = append(maybe, ev.State.CollabID)
			}
		}
		firsts, urls, err := insertFirstSightings(ctx, tx, events, at, maybe)
		if err != nil {
			return err
		}
		// The rows just inserted are locked already; lock the others.
		var seen []int64
		first := make([]bool, len(events))
		inserted := make(map[int64]bool, len(firsts))
		for i, ev := range events {
			first[i] = firsts[ev.State.ID]
			if first[i] {
				inserted[ev.State.ID] = true
			}
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
		for i, ev := range events {
			deliver[i] = callback.ShouldDeliver(ev, first[i], cancelled[i])
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
				if u.CreatedAt.After(projections[i].stateAt.Add(urlGrace)) || !u.Matches(st.Type, st.Status) {
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
					URL: u.URL, Body: body, Sign: u.AddSignature, MaxAttempts: u.MaxAttempts, Headers: u.Headers,
				})
			}
		}
		if fresh, err = withoutStored(ctx, tx, fresh, inserted); err != nil {
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
// URL (an event delivered again), and repeats within ds. Those of the
// transactions whose projection rows this database transaction inserted
// (inserted) are not looked for: a delivery is stored only for a
// transaction whose row exists, and this row was not there before.
func withoutStored(ctx context.Context, tx pgx.Tx, ds []callback.Delivery, inserted map[int64]bool) ([]callback.Delivery, error) {
	if len(ds) == 0 {
		return ds, nil
	}
	type key struct {
		event string
		url   int64
	}
	var events []string
	var urls []int64
	for _, dl := range ds {
		if !inserted[dl.TransactionID] {
			events, urls = append(events, dl.EventID), append(urls, dl.CallbackURLID)
		}
	}
	skip := map[key]bool{}
	if len(events) > 0 {
		rows, err := tx.Query(ctx, `
			SELECT d.event_id, d.callback_url_id
			FROM unnest($1::text[], $2::bigint[]) AS x(e, u)
			JOIN deliveries d ON d.event_id = x.e AND d.callback_url_id = x.u`, events, urls)
		if err != nil {
			return nil, fmt.Errorf("select stored deliveries: %w", err)
		}
		var k key
		if _, err := pgx.ForEachRow(rows, []any{&k.event, &k.url}, func() error {
			skip[k] = true
			return nil
		}); err != nil {
			return nil, fmt.Errorf("select stored deliveries: %w", err)
		}
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
// in the batch, and returns the ids it inserted, with the enabled callback
// URLs of collabs read in the same round trip (enabledURLs).
func insertFirstSightings(ctx context.Context, tx pgx.Tx, events []callback.TransactionEvent, at time.Time, collabs []int32) (map[int64]bool, map[int32][]callback.URL, error) {
	firstOf := map[int64]callback.TransactionEvent{}
	for _, ev := range events {
		if _, ok := firstOf[ev.State.ID]; !ok {
			firstOf[ev.State.ID] = ev
		}
	}
	n := len(firstOf)
	var (
		ids                  = make([]int64, 0, n)
		merchants, txCollabs = make([]int32, 0, n), make([]int32, 0, n)
		types, statuses      = make([]int32, 0, n), make([]int32, 0, n)
		cancelled            = make([]bool, 0, n)
		states               = make([]string, 0, n)
		stateAts             = make([]time.Time, 0, n)
	)
	for _, id := range keysOf(firstOf) {
		ev := firstOf[id]
		p, err := projectionOf(ev, at)
		if err != nil {
			return nil, nil, err
		}
		st := ev.State
		ids, merchants, txCollabs = append(ids, id), append(merchants, st.MerchantID), append(txCollabs, st.CollabID)
		types, statuses, cancelled = append(types, st.Type), append(statuses, st.Status), append(cancelled, st.CallbacksCanceled)
		states, stateAts = append(states, string(p.state)), append(stateAts, p.stateAt)
	}
	b := &pgx.Batch{}
	b.Queue(`
		INSERT INTO transactions (id, merchant_id, collab_id, type, status, callbacks_canceled, state, state_updated_at, updated_at)
		SELECT id, m, c, t, s, x, st::jsonb, sa, $9
		FROM unnest($1::bigint[], $2::int[], $3::int[], $4::smallint[], $5::smallint[], $6::boolean[], $7::text[], $8::timestamptz[])
			AS u(id, m, c, t, s, x, st, sa)
		ORDER BY id
		ON CONFLICT (id) DO NOTHING
		RETURNING id`, ids, merchants, txCollabs, types, statuses, cancelled, states, stateAts, at)
	if len(collabs) > 0 {
		queueEnabledURLs(b, collabs)
	}
	br := tx.SendBatch(ctx, b)
	defer br.Close()
	rows, err := br.Query()
	if err != nil {
		return nil, nil, fmt.Errorf("insert new transactions: %w", err)
	}
	inserted, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, nil, fmt.Errorf("insert new transactions: %w", err)
	}
	out := make(map[int64]bool, len(inserted))
	for _, id := range inserted {
		out[id] = true
	}
	urls := map[int32][]callback.URL{}
	if len(collabs) > 0 {
		if urls, err = readEnabledURLs(br.Query()); err != nil {
			return nil, nil, err
		}
	}
	if err := br.Close(); err != nil {
		return nil, nil, fmt.Errorf("insert new transactions: %w", err)
	}
	return out, urls, nil
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
	if len(collabs) == 0 {
		return map[int32][]callback.URL{}, nil
	}
	return readEnabledURLs(tx.Query(ctx, enabledURLsSQL, collabs))
}

// queueEnabledURLs queues on b the statement of enabledURLs (readEnabledURLs
// reads its answer).
func queueEnabledURLs(b *pgx.Batch, collabs []int32) { b.Queue(enabledURLsSQL, collabs) }

// enabledURLsSQL reads the enabled callback URLs of the collabs $1 with
// their custom headers, in one statement.
var enabledURLsSQL = `SELECT ` + urlColumnsOf("u") + `, ` + headerArrays + `
	FROM callback_urls u ` + headersLateral("u.id") + `
	WHERE u.collab_id = ANY($1) AND u.is_enabled ORDER BY u.id`

// readEnabledURLs reads the answer of queueEnabledURLs's statement, by collab.
func readEnabledURLs(rows pgx.Rows, err error) (map[int32][]callback.URL, error) {
	if err != nil {
		return nil, fmt.Errorf("select callback urls: %w", err)
	}
	urls, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (callback.URL, error) {
		var names []string
		var vals []*string
		var sealed [][]byte
		u, err := scanURL(row, &names, &vals, &sealed)
		u.Headers = headersOfArrays(names, vals, sealed)
		return u, err
	})
	if err != nil {
		return nil, fmt.Errorf("read callback urls: %w", err)
	}
	out := map[int32][]callback.URL{}
	for _, u := range urls {
		out[u.CollabID] = append(out[u.CollabID], u)
	}
	return out, nil
}
