package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/trace"

	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// deliveryRows are deliveries to insert in one statement, with their
// events' bodies.
type deliveryRows struct {
	webhookIDs, eventIDs, targets []string
	txIDs, urlIDs                 []int64
	merchants, maxes              []int32
	signs                         []bool
	bodyEvents, bodies, traces    []string
}

// add adds one delivery of data per URL of urls that matches the
// transaction type and status, under eventID, in the trace of sc (none when invalid).
func (r *deliveryRows) add(eventID string, transactionID int64, merchantID, typ, status int32, data callback.Data, urls []callback.URL, at time.Time, sc trace.SpanContext) error {
	added := false
	for _, u := range urls {
		if !u.Matches(typ, status) {
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
	r.traces = append(r.traces, bus.FormatTraceparent(sc))
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
			INSERT INTO delivery_bodies (event_id, body, traceparent)
			SELECT e, b, NULLIF(tp, '') FROM unnest($1::text[], $2::text[], $12::text[]) AS x(e, b, tp)
			ON CONFLICT (event_id) DO NOTHING)
		INSERT INTO deliveries (webhook_id, event_id, transaction_id, merchant_id, callback_url_id, url, sign,
			max_attempts, status, next_attempt_at, created_at, updated_at)
		SELECT w, e, t, m, u, target, sign, mx, 'pending', $3, $3, $3
		FROM unnest($4::text[], $5::text[], $6::bigint[], $7::int[], $8::bigint[], $9::text[], $10::boolean[], $11::int[])
			AS x(w, e, t, m, u, target, sign, mx)
		ON CONFLICT (event_id, callback_url_id) DO NOTHING
		RETURNING transaction_id, merchant_id`,
		r.bodyEvents, r.bodies, at, r.webhookIDs, r.eventIDs, r.txIDs, r.merchants, r.urlIDs, r.targets, r.signs, r.maxes, r.traces)
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
		// The deliveries continue the trace of the request that enqueued them.
		if err := rows.add(eventID, t.ID, t.MerchantID, t.Type, t.Status, t.Data, urls[t.CollabID], at, trace.SpanContextFromContext(ctx)); err != nil {
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

// AttemptsOfTransactions implements callback.Store: one statement over
// attempts_transaction_idx for the whole batch.
func (s *Store) AttemptsOfTransactions(ctx context.Context, ids []int64) ([]callback.Attempt, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT `+attemptColumns+`
		FROM attempts a JOIN deliveries d ON d.id = a.delivery_id JOIN delivery_bodies b ON b.event_id = d.event_id
		WHERE a.transaction_id = ANY($1::bigint[])
		ORDER BY a.transaction_id, a.id`, ids)
	if err != nil {
		return nil, fmt.Errorf("select attempts of %d transactions: %w", len(ids), err)
	}
	attempts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (callback.Attempt, error) { return scanAttempt(row) })
	if err != nil {
		return nil, fmt.Errorf("read attempts of %d transactions: %w", len(ids), err)
	}
	return attempts, nil
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

// ClaimDue implements callback.DeliveryStore. Deliveries to a URL whose
// breaker is not closed are skipped; a breaker whose cool-down ended (or
// whose probe's lease did) is taken half-open by this claimer, SKIP LOCKED,
// with its URL's oldest pending delivery as the probe.
func (s *Store) ClaimDue(ctx context.Context, now time.Time, limit int, leaseUntil time.Time) ([]callback.Delivery, error) {
	lease, err := uuid.NewV7()
	if err != nil {
		return nil, fmt.Errorf("lease id: %w", err)
	}
	var ds []callback.Delivery
	err = pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
			UPDATE url_breakers SET state = 'half_open', retry_at = $3, updated_at = $1
			WHERE callback_url_id IN (
				SELECT b.callback_url_id FROM url_breakers b
				WHERE b.state IN ('open', 'half_open') AND b.retry_at <= $1
					AND EXISTS (SELECT 1 FROM deliveries d
						WHERE d.callback_url_id = b.callback_url_id AND d.status = 'pending'
							AND (d.lease_until IS NULL OR d.lease_until <= $1))
				ORDER BY b.callback_url_id
				LIMIT $2
				FOR UPDATE SKIP LOCKED)
			RETURNING callback_url_id`, now, limit, leaseUntil)
		if err != nil {
			return fmt.Errorf("take breaker probes: %w", err)
		}
		probes, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return fmt.Errorf("take breaker probes: %w", err)
		}
		rows, err = tx.Query(ctx, `
			WITH picked AS (
				SELECT id FROM deliveries d
				WHERE status = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)
					AND NOT EXISTS (SELECT 1 FROM url_breakers b WHERE b.callback_url_id = d.callback_url_id AND b.state <> 'closed')
				ORDER BY next_attempt_at
				LIMIT $2
				FOR UPDATE SKIP LOCKED),
			probe AS (
				SELECT p.id FROM unnest($5::bigint[]) AS u(id) CROSS JOIN LATERAL (
					SELECT d.id FROM deliveries d
					WHERE d.callback_url_id = u.id AND d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until <= $1)
					ORDER BY d.next_attempt_at
					LIMIT 1
					FOR UPDATE SKIP LOCKED) p),
			claimed AS (
				UPDATE deliveries d SET lease_id = $3, lease_until = $4
				WHERE d.id = ANY (ARRAY(SELECT id FROM picked UNION SELECT id FROM probe))
				RETURNING d.id, d.webhook_id, d.transaction_id, d.merchant_id, d.url, d.event_id, d.sign, d.attempts_made,
					d.max_attempts, d.callback_url_id),
			-- The custom headers of the claimed deliveries' URLs, as they are
			-- now (an edit applies to the next attempt), once per URL.
			hh AS (
				SELECT h.callback_url_id, array_agg(h.name ORDER BY h.position) AS names,
					array_agg(h.value ORDER BY h.position) AS vals, array_agg(h.sealed ORDER BY h.position) AS sealed
				FROM callback_url_headers h
				WHERE h.callback_url_id IN (SELECT callback_url_id FROM claimed)
				GROUP BY h.callback_url_id)
			SELECT c.id, c.webhook_id, c.transaction_id, c.merchant_id, c.url, b.body, c.sign, c.attempts_made, c.max_attempts,
				coalesce(b.traceparent, ''), c.callback_url_id, `+headerArrays+`
			FROM claimed c JOIN delivery_bodies b ON b.event_id = c.event_id
			LEFT JOIN hh ON hh.callback_url_id = c.callback_url_id`,
			now, max(limit-len(probes), 0), lease, leaseUntil, probes)
		if err != nil {
			return fmt.Errorf("claim deliveries: %w", err)
		}
		ds, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (callback.Delivery, error) {
			d := callback.Delivery{Lease: lease.String()}
			var body, traceparent string
			var names []string
			var vals []*string
			var sealed [][]byte
			err := row.Scan(&d.ID, &d.WebhookID, &d.TransactionID, &d.MerchantID, &d.URL, &body, &d.Sign, &d.AttemptsMade, &d.MaxAttempts,
				&traceparent, &d.CallbackURLID, &names, &vals, &sealed)
			d.Body, d.Trace = []byte(body), bus.ParseTraceparent(traceparent)
			d.Headers = headersOfArrays(names, vals, sealed)
			return d, err
		})
		if err != nil {
			return fmt.Errorf("claim deliveries: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
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
		// The deliveries, their attempts and the lock of their breakers go
		// in one round trip, in the lock order; the tallies follow.
		d := deltas{}
		b := &pgx.Batch{}
		readFresh := queueFresh(b, fresh, at, d)
		readClaimed := queueClaimed(b, claimed, at, d)
		obs, readBreakers := queueBreakers(b, results, at)
		br := tx.SendBatch(ctx, b)
		err := readFresh(br)
		if err == nil {
			err = readClaimed(br)
		}
		var breakers []callback.Breaker
		if err == nil {
			breakers, err = readBreakers(br)
		}
		if cerr := br.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("record delivery results: %w", cerr)
		}
		if err != nil {
			return err
		}
		if err := s.observeBreakers(ctx, tx, breakers, obs, at); err != nil {
			return err
		}
		return d.write(ctx, tx, at)
	})
}

// batchReader reads the answers of statements queued on a batch, in order.
type batchReader func(pgx.BatchResults) error

func nothingQueued(pgx.BatchResults) error { return nil }

// queueFresh queues on b the statement that stores fresh deliveries as
// their results leave them, with their bodies and first attempts; its
// reader adds their tally deltas to d.
func queueFresh(b *pgx.Batch, results []callback.Result, at time.Time, d deltas) batchReader {
	if len(results) == 0 {
		return nothingQueued
	}
	n := len(results)
	var (
		webhookIDs, eventIDs, urls = make([]string, n), make([]string, n), make([]string, n)
		txIDs, urlIDs              = make([]int64, n), make([]int64, n)
		merchants, maxes, made     = make([]int32, n), make([]int32, n), make([]int32, n)
		signs                      = make([]bool, n)
		statuses, attemptStatus    = make([]string, n), make([]string, n)
		codes, durations           = make([]int32, n), make([]int32, n)
		nexts, ats                 = make([]time.Time, n), make([]time.Time, n)
		errs                       = make([]string, n)
		bodyEvents, bodies, traces []string
		pending                    []int64
	)
	hasBody := map[string]bool{}
	for i, r := range results {
		dl := r.Delivery
		webhookIDs[i], eventIDs[i], urls[i] = dl.WebhookID, dl.EventID, dl.URL
		txIDs[i], urlIDs[i], merchants[i], maxes[i], signs[i] = dl.TransactionID, dl.CallbackURLID, dl.MerchantID, dl.MaxAttempts, dl.Sign
		statuses[i], attemptStatus[i], codes[i] = string(r.Status), string(r.Attempt), r.ResponseCode
		nexts[i], ats[i], errs[i] = r.NextAttemptAt, r.At, r.ErrorMessage
		durations[i] = durationMS(r.Duration)
		if r.Attempt != "" {
			made[i] = 1
		}
		if !hasBody[dl.EventID] {
			hasBody[dl.EventID] = true
			bodyEvents, bodies = append(bodyEvents, dl.EventID), append(bodies, string(dl.Body))
			traces = append(traces, bus.FormatTraceparent(dl.Trace))
		}
		if r.Status == callback.DeliveryPending {
			pending = append(pending, dl.TransactionID)
		}
	}
	// A cancel locks its transaction before it cancels pending deliveries:
	// locking those that get one here first means a cancel either sees the
	// delivery or is seen by the insert below.
	lock := len(pending) > 0
	if lock {
		slices.Sort(pending)
		b.Queue(`SELECT 1 FROM transactions WHERE id = ANY($1) ORDER BY id FOR SHARE`, slices.Compact(pending))
	}
	b.Queue(`
		WITH body AS (
			INSERT INTO delivery_bodies (event_id, body, traceparent)
			SELECT e, b, NULLIF(tp, '') FROM unnest($1::text[], $2::text[], $19::text[]) AS x(e, b, tp)
			ON CONFLICT (event_id) DO NOTHING),
		x AS (
			SELECT * FROM unnest($4::text[], $5::text[], $6::bigint[], $7::int[], $8::bigint[], $9::text[], $10::boolean[],
				$11::int[], $12::int[], $13::text[], $14::timestamptz[], $15::timestamptz[], $16::int[], $17::text[], $18::text[],
				$20::int[])
				AS x(w, e, t, m, u, target, sign, mx, made, status, next, at, code, astatus, err, ms)),
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
			INSERT INTO attempts (delivery_id, transaction_id, merchant_id, created_at, url, response_code, status, attempt_number,
				error_message, callback_url_id, duration_ms)
			SELECT ins.id, ins.transaction_id, ins.merchant_id, x.at, x.target, x.code, x.astatus, 1, x.err, x.u, x.ms
			FROM ins JOIN x ON x.e = ins.event_id AND x.u = ins.callback_url_id
			WHERE x.astatus <> '')
		SELECT transaction_id, merchant_id, status FROM ins`,
		bodyEvents, bodies, at,
		webhookIDs, eventIDs, txIDs, merchants, urlIDs, urls, signs, maxes, made, statuses, nexts, ats, codes, attemptStatus, errs, traces,
		durations)
	return func(br pgx.BatchResults) error {
		if lock {
			if _, err := br.Exec(); err != nil {
				return fmt.Errorf("lock transactions: %w", err)
			}
		}
		rows, err := br.Query()
		if err != nil {
			return fmt.Errorf("insert fresh deliveries: %w", err)
		}
		if err := addSettled(rows, d, 1); err != nil {
			return fmt.Errorf("insert fresh deliveries: %w", err)
		}
		return nil
	}
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

// queueClaimed queues on b the statements that apply the results of
// claimed deliveries still under their leases and store their attempts (a
// result without one, a delivery whose URL had its share of requests in
// flight, only releases its lease and moves its next attempt); its reader
// adds their tally deltas to d.
func queueClaimed(b *pgx.Batch, results []callback.Result, at time.Time, d deltas) batchReader {
	if len(results) == 0 {
		return nothingQueued
	}
	n := len(results)
	var (
		ids, txIDs     = make([]int64, n), make([]int64, n)
		merchants      = make([]int32, n)
		leases         = make([]string, n)
		statuses       = make([]string, n)
		attemptStatus  = make([]string, n)
		numbers, codes = make([]int32, n), make([]int32, n)
		made           = make([]int32, n)
		nexts, ats     = make([]time.Time, n), make([]time.Time, n)
		urls, errs     = make([]string, n), make([]string, n)
		urlIDs         = make([]int64, n)
		durations      = make([]int32, n)
	)
	for i, r := range results {
		ids[i], txIDs[i], merchants[i], leases[i] = r.Delivery.ID, r.Delivery.TransactionID, r.Delivery.MerchantID, r.Delivery.Lease
		statuses[i], attemptStatus[i] = string(r.Status), string(r.Attempt)
		numbers[i], codes[i], nexts[i], ats[i] = r.Number(), r.ResponseCode, r.NextAttemptAt, r.At
		made[i] = r.AttemptsMade()
		urls[i], errs[i] = r.Delivery.URL, r.ErrorMessage
		urlIDs[i], durations[i] = r.Delivery.CallbackURLID, durationMS(r.Duration)
	}
	b.Queue(`
		UPDATE deliveries d
		SET status = r.status, attempts_made = r.n, next_attempt_at = r.next, lease_id = NULL, lease_until = NULL, updated_at = $1
		FROM unnest($2::bigint[], $3::text[], $4::text[], $5::int[], $6::timestamptz[]) AS r(id, lease, status, n, next)
		WHERE d.id = ANY ($2) AND d.id = r.id AND d.lease_id = r.lease::uuid AND d.status = 'pending'
		RETURNING d.transaction_id, d.merchant_id, d.status`,
		at, ids, leases, statuses, made, nexts)
	b.Queue(`
		INSERT INTO attempts (delivery_id, transaction_id, merchant_id, created_at, url, response_code, status, attempt_number, error_message,
			callback_url_id, duration_ms)
		SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::timestamptz[], $5::text[], $6::int[], $7::text[], $8::int[], $9::text[],
			$10::bigint[], $11::int[]) AS x(d, t, m, at, url, code, status, n, err, u, ms)
		WHERE x.status <> ''`,
		ids, txIDs, merchants, ats, urls, codes, attemptStatus, numbers, errs, urlIDs, durations)
	return func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err != nil {
			return fmt.Errorf("update deliveries: %w", err)
		}
		if err := addSettled(rows, d, 0); err != nil {
			return fmt.Errorf("update deliveries: %w", err)
		}
		if _, err := br.Exec(); err != nil {
			return fmt.Errorf("insert attempts: %w", err)
		}
		return nil
	}
}
