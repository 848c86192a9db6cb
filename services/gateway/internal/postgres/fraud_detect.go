package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/gateway/internal/fraud"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// The detection pass (docs/contracts-frauds.md, "How the job scans").
//
// Windows are fixed: a rule's window of W minutes starts at a multiple of W
// minutes since windowOrigin, so that a window is the same on every run and
// a flag's key (rule, merchant, basis, client, window start) never changes.
// A pass scans the transactions created in [watermark, to) and reopens the
// windows the watermark falls in, reading them from their start: what a
// window holds is always counted whole, and a flag is written again only
// when it measured more than before. Everything a pass writes, the
// watermark included, commits in one transaction: a pass that dies writes
// nothing, and the next starts from the same watermark.

// windowOrigin is where every rule's windows are counted from.
var windowOrigin = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// maxLinked is the most transactions one pass links to a flag (the first
// ones by id): a flag of a user agent shared by thousands of clients would
// otherwise copy them all.
const maxLinked = 1000

// amountSpikeWindowMinutes groups the spikes of a client in one hour into
// one fraud.
const amountSpikeWindowMinutes = 60

// windowStart is the start of t's window of minutes.
func windowStart(t time.Time, minutes int) time.Time {
	w := time.Duration(minutes) * time.Minute
	return windowOrigin.Add(t.Sub(windowOrigin) / w * w)
}

// DetectOnce implements fraud.Detector.
func (s *Frauds) DetectOnce(ctx context.Context, th fraud.Thresholds, until time.Time, span, firstLookback time.Duration) (fraud.DetectReport, bool, error) {
	var rep fraud.DetectReport
	done := false
	err := pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error {
		var mark *time.Time
		if err := t.QueryRow(ctx, `SELECT scanned_until FROM fraud_detection_state FOR UPDATE`).Scan(&mark); err != nil {
			return fmt.Errorf("read the fraud detection watermark: %w", err)
		}
		from := until.Add(-firstLookback)
		if mark != nil {
			from = mark.UTC()
		}
		if !from.Before(until) {
			done = true
			return nil
		}
		to := from.Add(span)
		if !to.Before(until) {
			to, done = until, true
		}
		rep.From, rep.To = from, to
		// The windows the watermark falls in, and its hour (the clients'
		// history is kept by hour), are read from their start.
		scanFrom := windowStart(from, 60)
		for _, w := range []int{th.VelocityWindowMinutes, th.FailuresWindowMinutes, th.SharedIdentityWindowMinutes} {
			if ws := windowStart(from, w); ws.Before(scanFrom) {
				scanFrom = ws
			}
		}
		scanFrom = windowStart(scanFrom, 60)
		var err error
		rep.Steps = map[string]time.Duration{}
		rep.Scanned, rep.Flagged, rep.Updated, rep.Linked, err = detect(ctx, t, th, scanFrom, from, to, time.Now().UTC(), rep.Steps)
		if err != nil {
			return err
		}
		if _, err := t.Exec(ctx, `UPDATE fraud_detection_state SET scanned_until = $1, last_run_at = now()`, to); err != nil {
			return fmt.Errorf("move the fraud detection watermark: %w", err)
		}
		return nil
	})
	if err != nil {
		return fraud.DetectReport{}, false, err
	}
	return rep, done, nil
}

// bucket is the SQL of the start of a row's window of $n minutes.
func bucket(n int) string {
	return fmt.Sprintf(`date_bin(make_interval(mins => $%d::integer), created_at, $%d::timestamptz)`, n, n+1)
}

// The rule statements. Each reads fraud_scan and writes fraud_flags (one row
// per flag) and fraud_hits (the flag's transactions). %[1]s is the column
// counted by, %[2]s its basis, %[3]s its words in a reason.
const (
	velocitySQL = `
		WITH g AS (
			SELECT merchant_id, %[1]s AS client_id, ` + "%[4]s" + ` AS ws, count(*) AS n,
				CASE WHEN min(mcid) = max(mcid) THEN min(mcid) ELSE '' END AS mcid
			FROM fraud_scan WHERE %[1]s <> '' GROUP BY 1, 2, 3 HAVING count(*) >= $3
		), f AS (
			INSERT INTO fraud_flags
			SELECT 'velocity', '%[2]s', merchant_id, client_id, mcid, ws, $1, n, $3,
				format('Velocity: %%s payments from %[3]s %%s within %%s minutes (the window from %%s UTC); the threshold is %%s payments.',
					n, client_id, $1, to_char(ws AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI'), $3)
			FROM g
		)
		INSERT INTO fraud_hits
		SELECT 'velocity', '%[2]s', s.merchant_id, g.client_id, g.ws, s.id
		FROM fraud_scan s JOIN g ON g.merchant_id = s.merchant_id AND g.client_id = s.%[1]s AND g.ws = ` + "%[5]s"

	sharedSQL = `
		WITH g AS (
			SELECT merchant_id, %[1]s AS client_id, ` + "%[4]s" + ` AS ws, count(DISTINCT mcid) AS n
			FROM fraud_scan WHERE %[1]s <> '' AND mcid <> '' GROUP BY 1, 2, 3 HAVING count(DISTINCT mcid) >= $3
		), f AS (
			INSERT INTO fraud_flags
			SELECT 'shared-identity', '%[2]s', merchant_id, client_id, '', ws, $1, n, $3,
				format('Shared identity: %[3]s %%s was used by %%s merchant client ids within %%s minutes (the window from %%s UTC); the threshold is %%s client ids.',
					client_id, n, $1, to_char(ws AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI'), $3)
			FROM g
		)
		INSERT INTO fraud_hits
		SELECT 'shared-identity', '%[2]s', s.merchant_id, g.client_id, g.ws, s.id
		FROM fraud_scan s JOIN g ON g.merchant_id = s.merchant_id AND g.client_id = s.%[1]s AND g.ws = ` + "%[5]s" + `
		WHERE s.mcid <> ''`

	// Failed: PSP Error, PSP Generic, Network Error, Internal Error,
	// Validation Failed (spec 02 §4); success: 4.
	failuresSQL = `
		WITH g AS (
			SELECT merchant_id, mcid AS client_id, %[1]s AS ws, max(created_at) FILTER (WHERE status = 4) AS last_ok
			FROM fraud_scan WHERE mcid <> '' GROUP BY 1, 2, 3
			HAVING count(*) FILTER (WHERE status = 4) > 0 AND count(*) FILTER (WHERE status BETWEEN -6 AND -2) >= $3
		), m AS (
			SELECT g.merchant_id, g.client_id, g.ws, s.id,
				count(*) FILTER (WHERE s.status <> 4) OVER (PARTITION BY g.merchant_id, g.client_id, g.ws) AS failures
			FROM g JOIN fraud_scan s ON s.merchant_id = g.merchant_id AND s.mcid = g.client_id AND g.ws = %[2]s
			WHERE s.status = 4 OR s.status BETWEEN -6 AND -2 AND s.created_at < g.last_ok
		), ok AS (
			SELECT * FROM m WHERE failures >= $3
		), f AS (
			INSERT INTO fraud_flags
			SELECT DISTINCT ON (merchant_id, client_id, ws) 'failures-then-success', 'merchant-client-id', merchant_id,
				client_id, client_id, ws, $1, failures, $3,
				format('Failures then success: %%s failed payments, then a successful one, from merchant client id %%s within %%s minutes (the window from %%s UTC); the threshold is %%s failures.',
					failures, client_id, $1, to_char(ws AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI'), $3)
			FROM ok ORDER BY merchant_id, client_id, ws
		)
		INSERT INTO fraud_hits SELECT 'failures-then-success', 'merchant-client-id', merchant_id, client_id, ws, id FROM ok`

	// The amount spike judges the new transactions, each against the
	// client's payments before it: the hours before the scan
	// (fraud_client_stats) and the scanned ones before it. $6 is where the
	// scan starts, on an hour.
	spikeSQL = `
		WITH c AS (
			SELECT DISTINCT merchant_id, mcid, currency FROM fraud_scan WHERE mcid <> '' AND created_at >= $4
		), h AS (
			SELECT c.merchant_id, c.mcid, c.currency, x.payments, x.amount
			FROM c CROSS JOIN LATERAL (
				SELECT sum(st.payments) AS payments, sum(st.amount) AS amount FROM fraud_client_stats st
				WHERE st.merchant_id = c.merchant_id AND st.merchant_client_id = c.mcid AND st.currency = c.currency
					AND st.hour < $6
			) x
		), p AS (
			SELECT s.id, s.merchant_id, s.mcid, s.currency, s.amount, s.created_at,
				COALESCE(h.payments, 0) + count(*) OVER w AS prior_n,
				COALESCE(h.amount, 0) + COALESCE(sum(s.amount) OVER w, 0) AS prior_sum
			FROM fraud_scan s
			LEFT JOIN h ON h.merchant_id = s.merchant_id AND h.mcid = s.mcid AND h.currency = s.currency
			WHERE s.mcid <> ''
			WINDOW w AS (PARTITION BY s.merchant_id, s.mcid, s.currency ORDER BY s.created_at, s.id
				ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
		), hit AS (
			SELECT p.*, %[1]s AS ws, round(prior_sum / prior_n, 2) AS average, amount / (prior_sum / prior_n) AS ratio
			FROM p WHERE created_at >= $4 AND prior_n >= $3 AND prior_sum > 0 AND amount >= $5::numeric * prior_sum / prior_n
		), f AS (
			INSERT INTO fraud_flags
			SELECT DISTINCT ON (merchant_id, mcid, ws) 'amount-spike', 'merchant-client-id', merchant_id, mcid, mcid, ws, $1,
				round(ratio, 4), $5::numeric,
				format('Amount spike: a payment of %%s %%s from merchant client id %%s is %%s times the client''s average of %%s %%s over %%s earlier payments; the threshold is %%s times, after at least %%s payments.',
					amount, currency, mcid, round(ratio, 2), average, currency, prior_n, $5::numeric, $3)
			FROM hit ORDER BY merchant_id, mcid, ws, ratio DESC, id
		)
		INSERT INTO fraud_hits SELECT 'amount-spike', 'merchant-client-id', merchant_id, mcid, ws, id FROM hit`
)

// detect runs the rules over the transactions created in [scanFrom, to)
// (scanFrom on an hour; the spike judges [from, to)), upserts the flags,
// links their transactions, and rewrites the clients' history of the
// scanned hours.
func detect(ctx context.Context, t pgx.Tx, th fraud.Thresholds, scanFrom, from, to, now time.Time, steps map[string]time.Duration) (scanned, flagged, updated, linked int64, err error) {
	mark := time.Now()
	step := func(name string) {
		steps[name] += time.Since(mark)
		mark = time.Now()
	}
	// Hash aggregates and sorts of a day's transactions stay in memory.
	if _, err = t.Exec(ctx, `SET LOCAL work_mem = '256MB'`); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("set work_mem: %w", err)
	}
	tag, err := t.Exec(ctx, `
		CREATE TEMP TABLE fraud_scan ON COMMIT DROP AS
		SELECT id, merchant_id, merchant_client_id AS mcid, payment_ip_address AS ip, user_agent AS ua, status, amount,
			currency, created_at
		FROM transactions WHERE created_at >= $1 AND created_at < $2`, scanFrom, to)
	if err != nil {
		return 0, 0, 0, 0, fmt.Errorf("read the transactions to scan: %w", err)
	}
	scanned = tag.RowsAffected()
	step("read the transactions")
	for _, sql := range []string{
		`ANALYZE fraud_scan`,
		`CREATE TEMP TABLE fraud_flags (rule text, basis text, merchant_id integer, client_id text, mcid text,
			window_start timestamptz, window_minutes integer, observed numeric, threshold numeric, reason text) ON COMMIT DROP`,
		`CREATE TEMP TABLE fraud_hits (rule text, basis text, merchant_id integer, client_id text,
			window_start timestamptz, transaction_id bigint) ON COMMIT DROP`,
	} {
		if _, err := t.Exec(ctx, sql); err != nil {
			return 0, 0, 0, 0, fmt.Errorf("prepare the scan: %w", err)
		}
	}
	type rule struct {
		name string
		sql  string
		args []any
	}
	rules := []rule{
		{"velocity by merchant client id", fmt.Sprintf(velocitySQL, "mcid", "merchant-client-id", "merchant client id", bucket(1), bucket(1)),
			[]any{th.VelocityWindowMinutes, windowOrigin, th.VelocityMaxPayments}},
		{"velocity by IP address", fmt.Sprintf(velocitySQL, "ip", "ip", "IP address", bucket(1), bucket(1)),
			[]any{th.VelocityWindowMinutes, windowOrigin, th.VelocityMaxPayments}},
		{"shared user agent", fmt.Sprintf(sharedSQL, "ua", "user-agent", "user agent", bucket(1), bucket(1)),
			[]any{th.SharedIdentityWindowMinutes, windowOrigin, th.SharedIdentityMinClients}},
		{"shared IP address", fmt.Sprintf(sharedSQL, "ip", "ip", "IP address", bucket(1), bucket(1)),
			[]any{th.SharedIdentityWindowMinutes, windowOrigin, th.SharedIdentityMinClients}},
		{"failures then success", fmt.Sprintf(failuresSQL, bucket(1), bucket(1)),
			[]any{th.FailuresWindowMinutes, windowOrigin, th.FailuresBeforeSuccess}},
		{"amount spike", fmt.Sprintf(spikeSQL, bucket(1)),
			[]any{amountSpikeWindowMinutes, windowOrigin, th.AmountSpikeMinHistory, from, th.AmountSpikeFactor, scanFrom}},
	}
	for _, r := range rules {
		if _, err := t.Exec(ctx, r.sql, r.args...); err != nil {
			return 0, 0, 0, 0, fmt.Errorf("run the %s rule: %w", r.name, err)
		}
		step(r.name)
	}
	rows, err := t.Query(ctx, `
		INSERT INTO client_frauds AS c (reference_id, rule, basis, merchant_id, client_id, merchant_client_id, window_start,
			window_minutes, observed, threshold, level, reason, detected_at, updated_at)
		SELECT 'FRD-' || upper(substr(md5(rule || '|' || merchant_id || '|' || basis || '|' || client_id || '|' ||
				extract(epoch FROM window_start)::bigint), 1, 16)),
			rule, basis, merchant_id, client_id, mcid, window_start, window_minutes, observed, threshold,
			CASE WHEN observed >= threshold * $2 THEN 4 WHEN observed >= threshold * $3 THEN 3
				WHEN observed >= threshold * $4 THEN 2 ELSE 1 END,
			reason, $1, $1
		FROM fraud_flags
		ON CONFLICT ON CONSTRAINT client_frauds_flag_key DO UPDATE SET observed = EXCLUDED.observed,
			threshold = EXCLUDED.threshold, level = EXCLUDED.level, reason = EXCLUDED.reason,
			merchant_client_id = EXCLUDED.merchant_client_id, updated_at = EXCLUDED.updated_at
		WHERE c.observed < EXCLUDED.observed
		RETURNING xmax = 0`, now, float64(fraud.CriticalRatio), float64(fraud.HighRatio), float64(fraud.MediumRatio))
	if err != nil {
		return 0, 0, 0, 0, fmt.Errorf("write the flags: %w", err)
	}
	inserted, err := pgx.CollectRows(rows, pgx.RowTo[bool])
	if err != nil {
		return 0, 0, 0, 0, fmt.Errorf("write the flags: %w", err)
	}
	step("write the flags")
	for _, ins := range inserted {
		if ins {
			flagged++
		} else {
			updated++
		}
	}
	tag, err = t.Exec(ctx, `
		INSERT INTO fraud_transactions (fraud_id, transaction_id)
		SELECT c.id, h.transaction_id
		FROM (SELECT h.*, row_number() OVER (PARTITION BY rule, basis, merchant_id, client_id, window_start
				ORDER BY transaction_id) AS n
			FROM fraud_hits h) h
		JOIN client_frauds c USING (rule, basis, merchant_id, client_id, window_start)
		WHERE h.n <= $1
		ON CONFLICT DO NOTHING`, maxLinked)
	if err != nil {
		return 0, 0, 0, 0, fmt.Errorf("link the flags' transactions: %w", err)
	}
	linked = tag.RowsAffected()
	step("link the transactions")
	if linked > 0 {
		if _, err := t.Exec(ctx, `
			UPDATE client_frauds c SET transaction_count = x.n
			FROM (SELECT ft.fraud_id, count(*) AS n FROM fraud_transactions ft
				WHERE ft.fraud_id IN (SELECT c.id FROM fraud_flags g
					JOIN client_frauds c USING (rule, basis, merchant_id, client_id, window_start))
				GROUP BY 1) x
			WHERE c.id = x.fraud_id AND c.transaction_count <> x.n`); err != nil {
			return 0, 0, 0, 0, fmt.Errorf("count the flags' transactions: %w", err)
		}
	}
	// The scanned hours of the clients' history are replaced: a pass over
	// rows already scanned counts them once.
	if _, err := t.Exec(ctx, `DELETE FROM fraud_client_stats WHERE hour >= $1 AND hour < $2`, scanFrom, to); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("clear the clients' scanned history: %w", err)
	}
	if _, err := t.Exec(ctx, `
		INSERT INTO fraud_client_stats (merchant_id, merchant_client_id, currency, hour, payments, amount)
		SELECT merchant_id, mcid, currency, date_trunc('hour', created_at, 'UTC'), count(*), sum(amount) FROM fraud_scan
		WHERE mcid <> '' GROUP BY 1, 2, 3, 4`); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("write the clients' history: %w", err)
	}
	step("rewrite the history")
	return scanned, flagged, updated, linked, nil
}
