package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/internal/bus"
)

// durationMS is d in whole milliseconds, within an int.
func durationMS(d time.Duration) int32 {
	return int32(min(max(d.Milliseconds(), 0), 1<<31-1))
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// queueBreakers queues on b the statements that add the breakers of the
// URLs failing for the first time among results and lock the breakers of
// the URLs results attempted (those that have one: that ever failed), in
// id order; it returns the attempts by URL, and the reader of the locked
// breakers.
func queueBreakers(b *pgx.Batch, results []callback.Result, at time.Time) (map[int64][]callback.Observation, func(pgx.BatchResults) ([]callback.Breaker, error)) {
	obs := map[int64][]callback.Observation{}
	var failing []int64
	for _, r := range results {
		if r.Attempt == "" || r.Delivery.CallbackURLID == 0 {
			continue
		}
		ok := r.Attempt == callback.AttemptSuccess
		id := r.Delivery.CallbackURLID
		obs[id] = append(obs[id], callback.Observation{At: r.At, OK: ok, Error: r.ErrorMessage})
		if !ok {
			failing = append(failing, id)
		}
	}
	if len(obs) == 0 {
		return obs, func(pgx.BatchResults) ([]callback.Breaker, error) { return nil, nil }
	}
	if len(failing) > 0 {
		slices.Sort(failing)
		b.Queue(`
			INSERT INTO url_breakers (callback_url_id, updated_at)
			SELECT id, $2 FROM unnest($1::bigint[]) AS u(id) ORDER BY id
			ON CONFLICT (callback_url_id) DO NOTHING`, slices.Compact(failing), at)
	}
	b.Queue(`
		SELECT callback_url_id, state, consecutive_failures, failing_since, cooldown_ms, retry_at, last_error
		FROM url_breakers WHERE callback_url_id = ANY ($1) ORDER BY callback_url_id FOR UPDATE`, keysOf(obs))
	return obs, func(br pgx.BatchResults) ([]callback.Breaker, error) {
		if len(failing) > 0 {
			if _, err := br.Exec(); err != nil {
				return nil, fmt.Errorf("add breakers: %w", err)
			}
		}
		rows, err := br.Query()
		if err != nil {
			return nil, fmt.Errorf("lock breakers: %w", err)
		}
		breakers, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (callback.Breaker, error) {
			var b callback.Breaker
			var state string
			var since, retry *time.Time
			var cooldown int64
			err := row.Scan(&b.URLID, &state, &b.Failures, &since, &cooldown, &retry, &b.LastError)
			b.State, b.Cooldown = callback.BreakerState(state), time.Duration(cooldown)*time.Millisecond
			if since != nil {
				b.FailingSince = *since
			}
			if retry != nil {
				b.RetryAt = *retry
			}
			return b, err
		})
		if err != nil {
			return nil, fmt.Errorf("lock breakers: %w", err)
		}
		return breakers, nil
	}
}

// observeBreakers applies the attempts obs (queueBreakers) to their URLs'
// locked breakers (docs/contracts-callbacks.md, "Endpoint health"), and
// writes only the breakers that changed. A breaker that opens defers its
// URL's pending deliveries to the end of the cool-down, one that closes
// makes them due at once (both skip deliveries another transaction holds:
// the claim skips an open URL's deliveries anyway). A URL failing for
// longer than DisableAfter is disabled, with a CallbackUrlDisabled event.
func (s *Store) observeBreakers(ctx context.Context, tx pgx.Tx, breakers []callback.Breaker, obs map[int64][]callback.Observation, at time.Time) error {
	var (
		upIDs, cooldowns   []int64
		states, lastErrors []string
		failures           []int32
		sinces, retries    []*time.Time
		opened, closed     []int64
		openedAt, parkedTo []time.Time
		disabled           []callback.Breaker
		disabledReasons    []string
	)
	for _, b := range breakers {
		o := obs[b.URLID]
		slices.SortStableFunc(o, func(x, y callback.Observation) int { return x.At.Compare(y.At) })
		after, t := s.Breakers.Observe(b, o, at)
		if after == b {
			continue
		}
		upIDs, states, failures = append(upIDs, after.URLID), append(states, string(after.State)), append(failures, after.Failures)
		sinces, retries = append(sinces, nullTime(after.FailingSince)), append(retries, nullTime(after.RetryAt))
		cooldowns, lastErrors = append(cooldowns, after.Cooldown.Milliseconds()), append(lastErrors, after.LastError)
		switch {
		case t.Opened:
			opened, openedAt = append(opened, after.URLID), append(openedAt, after.RetryAt)
			parkedTo = append(parkedTo, s.Breakers.ParkUntil(after.RetryAt))
		case t.Closed:
			closed = append(closed, after.URLID)
		case t.Disabled:
			disabled, disabledReasons = append(disabled, after), append(disabledReasons, t.Reason)
		}
	}
	if len(upIDs) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `
		UPDATE url_breakers b SET state = x.state, consecutive_failures = x.failures, failing_since = x.since,
			cooldown_ms = x.cooldown, retry_at = x.retry, last_error = x.err, updated_at = $8
		FROM unnest($1::bigint[], $2::text[], $3::int[], $4::timestamptz[], $5::bigint[], $6::timestamptz[], $7::text[])
			AS x(id, state, failures, since, cooldown, retry, err)
		WHERE b.callback_url_id = x.id`,
		upIDs, states, failures, sinces, cooldowns, retries, lastErrors, at); err != nil {
		return fmt.Errorf("update breakers: %w", err)
	}
	if len(opened) > 0 {
		// Park the URL's pending deliveries due before its probe (ParkUntil):
		// those parked at an earlier opening are left as they are, so a
		// reopening rewrites only what came since, not the whole backlog.
		if _, err := tx.Exec(ctx, `
			UPDATE deliveries d SET next_attempt_at = x.park
			FROM unnest($1::bigint[], $3::timestamptz[]) AS x(id, park)
			WHERE d.id IN (SELECT p.id FROM deliveries p JOIN unnest($1::bigint[], $2::timestamptz[]) AS y(id, until)
					ON p.callback_url_id = y.id AND p.next_attempt_at < y.until
				WHERE p.status = 'pending' AND p.lease_id IS NULL FOR UPDATE OF p SKIP LOCKED)
				AND d.callback_url_id = x.id`, opened, openedAt, parkedTo); err != nil {
			return fmt.Errorf("park deliveries of open breakers: %w", err)
		}
	}
	if len(closed) > 0 {
		if err := dueNow(ctx, tx, closed, at); err != nil {
			return err
		}
	}
	for i, b := range disabled {
		if err := disableURL(ctx, tx, b, disabledReasons[i], at); err != nil {
			return err
		}
	}
	return nil
}

// dueNow makes the pending deliveries of urlIDs that wait for later due at
// at, skipping those another transaction holds.
func dueNow(ctx context.Context, tx pgx.Tx, urlIDs []int64, at time.Time) error {
	if _, err := tx.Exec(ctx, `
		UPDATE deliveries SET next_attempt_at = $2
		WHERE id IN (SELECT id FROM deliveries WHERE callback_url_id = ANY ($1) AND status = 'pending'
			AND next_attempt_at > $2 FOR UPDATE SKIP LOCKED)`, urlIDs, at); err != nil {
		return fmt.Errorf("make deliveries of closed breakers due: %w", err)
	}
	return nil
}

// disableURL disables a callback URL automatically with the
// CallbackUrlDisabled event, unless another transaction holds its row (the
// next failure tries again: its breaker is set back to open).
func disableURL(ctx context.Context, tx pgx.Tx, b callback.Breaker, reason string, at time.Time) error {
	var u callback.URL
	rows, err := tx.Query(ctx, `
		UPDATE callback_urls SET is_enabled = false, disabled_reason = $2, disabled_at = $3, updated_at = $3
		WHERE id IN (SELECT id FROM callback_urls WHERE id = $1 AND is_enabled FOR UPDATE SKIP LOCKED)
		RETURNING `+urlColumns, b.URLID, reason, at)
	if err != nil {
		return fmt.Errorf("disable callback url %d: %w", b.URLID, err)
	}
	urls, err := collectURLs(rows)
	if err != nil {
		return err
	}
	if len(urls) == 0 {
		// Held by an edit, or disabled or deleted meanwhile: an enabled URL
		// stays open and is tried again; otherwise it stays as it is.
		_, err := tx.Exec(ctx, `
			UPDATE url_breakers SET state = 'open', retry_at = $2
			WHERE callback_url_id = $1 AND EXISTS (SELECT 1 FROM callback_urls WHERE id = $1 AND is_enabled)`, b.URLID, at)
		if err != nil {
			return fmt.Errorf("keep breaker of callback url %d open: %w", b.URLID, err)
		}
		return nil
	}
	u = urls[0]
	ev := &eventsv1.CallbackUrlDisabled{CallbackId: u.ID, CollabId: u.CollabID, MerchantId: u.MerchantID, CallbackUrl: u.URL,
		Reason: reason, FailingSince: timestamppb.New(b.FailingSince), DisabledAt: timestamppb.New(at)}
	if _, err := bus.Enqueue(ctx, tx, bus.Subject(ev), ev); err != nil {
		return fmt.Errorf("callback url %d disabled event: %w", u.ID, err)
	}
	return nil
}

// BlockedURLs implements callback.DeliveryStore.
func (s *Store) BlockedURLs(ctx context.Context) (map[int64]time.Time, error) {
	rows, err := s.pool.Query(ctx, `SELECT callback_url_id, coalesce(retry_at, 'epoch') FROM url_breakers WHERE state <> 'closed'`)
	if err != nil {
		return nil, fmt.Errorf("select open breakers: %w", err)
	}
	out := map[int64]time.Time{}
	var id int64
	var retry time.Time
	if _, err := pgx.ForEachRow(rows, []any{&id, &retry}, func() error {
		out[id] = retry
		return nil
	}); err != nil {
		return nil, fmt.Errorf("select open breakers: %w", err)
	}
	return out, nil
}

// EndpointHealth implements callback.HealthStore: one statement, each URL's
// attempts aggregated over attempts_url_time_idx (index-only: status and
// duration are included).
func (s *Store) EndpointHealth(ctx context.Context, merchantID int32, since time.Time) ([]callback.EndpointHealth, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT u.id, u.collab_id, u.merchant_id, u.url, u.is_enabled, u.max_attempts, u.add_signature,
			COALESCE(u.transaction_type, 0), u.created_at, u.updated_at, coalesce(u.disabled_reason, ''), coalesce(u.disabled_at, 'epoch'),
			h.n, h.ok, h.p95, coalesce(b.state, 'closed'), coalesce(b.consecutive_failures, 0), b.failing_since, b.retry_at,
			coalesce(b.last_error, '')
		FROM callback_urls u
		LEFT JOIN url_breakers b ON b.callback_url_id = u.id
		CROSS JOIN LATERAL (
			SELECT count(*) AS n, count(*) FILTER (WHERE a.status = 'Success') AS ok,
				percentile_disc(0.95) WITHIN GROUP (ORDER BY a.duration_ms) AS p95
			FROM attempts a WHERE a.callback_url_id = u.id AND a.created_at >= $2) h
		WHERE u.merchant_id = $1
		ORDER BY u.id`, merchantID, since)
	if err != nil {
		return nil, fmt.Errorf("select endpoint health: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (callback.EndpointHealth, error) {
		var h callback.EndpointHealth
		var u callback.URL
		var maxAttempts, typ int16
		var p95 *int32
		var state string
		var since, retry *time.Time
		err := row.Scan(&u.ID, &u.CollabID, &u.MerchantID, &u.URL, &u.Enabled, &maxAttempts, &u.AddSignature,
			&typ, &u.CreatedAt, &u.UpdatedAt, &u.DisabledReason, &u.DisabledAt,
			&h.Attempts, &h.Successes, &p95, &state, &h.Breaker.Failures, &since, &retry, &h.Breaker.LastError)
		u.MaxAttempts, u.TransactionType = int32(maxAttempts), int32(typ)
		if u.DisabledAt.Equal(time.Unix(0, 0)) {
			u.DisabledAt = time.Time{}
		}
		h.URL, h.Breaker.URLID, h.Breaker.State = u, u.ID, callback.BreakerState(state)
		if p95 != nil {
			h.P95, h.HasP95 = time.Duration(*p95)*time.Millisecond, true
		}
		if since != nil {
			h.Breaker.FailingSince = *since
		}
		if retry != nil {
			h.Breaker.RetryAt = *retry
		}
		return h, err
	})
	if err != nil {
		return nil, fmt.Errorf("read endpoint health: %w", err)
	}
	return out, nil
}
