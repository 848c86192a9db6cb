package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/paygate/paygate/services/aggregator/internal/statistics"
	"github.com/paygate/paygate/services/internal/pgdb"
)

var (
	_ statistics.Store        = (*Store)(nil)
	_ statistics.RebuildStore = (*Store)(nil)
)

// rollupTables are the rollups by grain.
var rollupTables = map[statistics.Grain]string{
	statistics.Hour:   "stats_hour",
	statistics.Day:    "stats_day",
	statistics.Month:  "stats_month",
	statistics.Minute: "stats_minute",
}

// batchNotes gathers what a batch of states tells besides its counts: the
// newest update among them and the merchants' and providers' names.
type batchNotes struct {
	asOf                 time.Time
	merchants, providers map[int32]string
}

func newBatchNotes() *batchNotes {
	return &batchNotes{merchants: map[int32]string{}, providers: map[int32]string{}}
}

// add notes one state.
func (n *batchNotes) add(st statistics.State) {
	if st.UpdatedAt.After(n.asOf) {
		n.asOf = st.UpdatedAt
	}
	if st.MerchantName != "" {
		n.merchants[st.MerchantID] = st.MerchantName
	}
	if st.ProviderName != "" {
		n.providers[st.ProviderID] = st.ProviderName
	}
}

// write stores the names and, when advance is set, moves the statistics'
// as-of time forward to the newest update (in the live consumer's lock
// order: names, then progress).
func (n *batchNotes) write(ctx context.Context, tx pgx.Tx, advance bool) error {
	if err := upsertNames(ctx, tx, "merchants", n.merchants); err != nil {
		return err
	}
	if err := upsertNames(ctx, tx, "providers", n.providers); err != nil {
		return err
	}
	if !advance || n.asOf.IsZero() {
		return nil
	}
	if _, err := tx.Exec(ctx, `UPDATE progress SET as_of = greatest(as_of, $1)`, n.asOf); err != nil {
		return fmt.Errorf("update as_of: %w", err)
	}
	return nil
}

// Apply implements statistics.Store. Placeholder rows (version 0) are
// inserted first for transactions not seen yet, so that two writers of the
// same new transaction queue on its row instead of both counting it; then
// the batch's rows are locked in id order, compared by version, and every
// rollup is written with one statement.
func (s *Store) Apply(ctx context.Context, states []statistics.State) (int, error) {
	states = statistics.Newest(states)
	if len(states) == 0 {
		return 0, nil
	}
	ids := make([]int64, len(states))
	for i, st := range states {
		ids[i] = st.ID
	}
	applied := 0
	err := pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		applied = 0
		if _, err := tx.Exec(ctx, `INSERT INTO tx_state (id) SELECT unnest($1::bigint[]) ON CONFLICT (id) DO NOTHING`, ids); err != nil {
			return fmt.Errorf("insert placeholder states: %w", err)
		}
		rows, err := tx.Query(ctx, `
			SELECT id, version, COALESCE(created_minute, created_hour), created_minute IS NOT NULL, merchant_id, collab_id,
				provider_id, status, transaction_type, currency, amount::text
			FROM tx_state WHERE id = ANY($1) ORDER BY id FOR UPDATE`, ids)
		if err != nil {
			return fmt.Errorf("lock states: %w", err)
		}
		old := make(map[int64]statistics.State, len(ids))
		// minuteKnown: the stored state has its creation minute (it was
		// written since migration 0013), so its minute bucket holds it.
		minuteKnown := make(map[int64]bool, len(ids))
		for rows.Next() {
			var st statistics.State
			var typ int16
			var known bool
			if err := rows.Scan(&st.ID, &st.Version, &st.CreatedAt, &known, &st.MerchantID, &st.CollabID, &st.ProviderID,
				&st.Status, &typ, &st.Currency, &st.Amount); err != nil {
				rows.Close()
				return fmt.Errorf("scan state: %w", err)
			}
			st.Type = int32(typ)
			old[st.ID] = st
			minuteKnown[st.ID] = known
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read states: %w", err)
		}

		deltas := map[statistics.Grain]*statistics.Deltas{}
		for _, g := range statistics.Grains {
			deltas[g] = statistics.NewDeltas(g)
		}
		cash := statistics.NewCashDeltas()
		minutes := statistics.NewDeltas(statistics.Minute)
		horizon := statistics.MinuteHorizon(time.Now())
		var newer []statistics.State
		notes := newBatchNotes()
		for _, st := range states {
			o := old[st.ID]
			if o.Version >= st.Version {
				continue
			}
			var prev *statistics.State
			if o.Version > 0 {
				prev = &o
			}
			for _, g := range statistics.Grains {
				deltas[g].Move(prev, st)
			}
			cash.Move(prev, st)
			// Minute buckets only within the retention (a rebuild of years
			// writes none of the older ones).
			if !st.CreatedAt.Before(horizon) {
				mprev := prev
				if prev != nil && !minuteKnown[st.ID] {
					mprev = nil
				}
				minutes.Move(mprev, st)
			}
			newer = append(newer, st)
			notes.add(st)
		}
		if len(newer) == 0 {
			return nil
		}
		if err := updateStates(ctx, tx, newer); err != nil {
			return err
		}
		for _, g := range statistics.Grains {
			if err := upsertRollup(ctx, tx, rollupTables[g], deltas[g].Rows()); err != nil {
				return err
			}
		}
		if err := upsertRollup(ctx, tx, rollupTables[statistics.Minute], minutes.Rows()); err != nil {
			return err
		}
		if err := upsertCash(ctx, tx, cash.Rows()); err != nil {
			return err
		}
		if err := notes.write(ctx, tx, true); err != nil {
			return err
		}
		applied = len(newer)
		return nil
	})
	if err != nil {
		return 0, err
	}
	return applied, nil
}

func updateStates(ctx context.Context, tx pgx.Tx, states []statistics.State) error {
	n := len(states)
	var (
		ids, versions                       = make([]int64, n), make([]int64, n)
		hours, minutes                      = make([]time.Time, n), make([]time.Time, n)
		merchants, collabs, providers, stat = make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
		types                               = make([]int32, n)
		currencies, amounts                 = make([]string, n), make([]string, n)
	)
	for i, st := range states {
		ids[i], versions[i], hours[i], minutes[i] = st.ID, st.Version, statistics.Hour.Bucket(st.CreatedAt), statistics.Minute.Bucket(st.CreatedAt)
		merchants[i], collabs[i], providers[i], stat[i], types[i] = st.MerchantID, st.CollabID, st.ProviderID, st.Status, st.Type
		currencies[i], amounts[i] = st.Currency, st.Amount
	}
	_, err := tx.Exec(ctx, `
		UPDATE tx_state t SET version = u.version, created_hour = u.created_hour, merchant_id = u.merchant_id,
			collab_id = u.collab_id, provider_id = u.provider_id, status = u.status,
			transaction_type = u.transaction_type::smallint, currency = u.currency, amount = u.amount::numeric,
			created_minute = u.created_minute
		FROM unnest($1::bigint[], $2::bigint[], $3::timestamptz[], $4::int[], $5::int[], $6::int[], $7::int[], $8::int[], $9::text[], $10::text[], $11::timestamptz[])
			AS u (id, version, created_hour, merchant_id, collab_id, provider_id, status, transaction_type, currency, amount, created_minute)
		WHERE t.id = u.id`,
		ids, versions, hours, merchants, collabs, providers, stat, types, currencies, amounts, minutes)
	if err != nil {
		return fmt.Errorf("update states: %w", err)
	}
	return nil
}

func upsertRollup(ctx context.Context, tx pgx.Tx, table string, rows []statistics.Row) error {
	if len(rows) == 0 {
		return nil
	}
	n := len(rows)
	var (
		buckets                                    = make([]time.Time, n)
		merchants, collabs, providers, stat, types = make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
		currencies, amounts                        = make([]string, n), make([]string, n)
		counts                                     = make([]int64, n)
	)
	for i, r := range rows {
		buckets[i], merchants[i], collabs[i], providers[i] = r.Bucket, r.MerchantID, r.CollabID, r.ProviderID
		stat[i], types[i], currencies[i], counts[i], amounts[i] = r.Status, r.Type, r.Currency, r.N, r.Amount
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO `+table+` AS t (bucket, merchant_id, collab_id, provider_id, status, transaction_type, currency, n, amount)
		SELECT b, m, c, p, s, ty::smallint, cur, n, a::numeric
		FROM unnest($1::timestamptz[], $2::int[], $3::int[], $4::int[], $5::int[], $6::int[], $7::text[], $8::bigint[], $9::text[])
			AS u (b, m, c, p, s, ty, cur, n, a)
		ON CONFLICT (bucket, merchant_id, collab_id, provider_id, status, transaction_type, currency)
		DO UPDATE SET n = t.n + excluded.n, amount = t.amount + excluded.amount`,
		buckets, merchants, collabs, providers, stat, types, currencies, counts, amounts)
	if err != nil {
		return fmt.Errorf("upsert %s: %w", table, err)
	}
	return nil
}

// upsertCash adds a batch's merged changes to the cash rollup in one
// statement.
func upsertCash(ctx context.Context, tx pgx.Tx, rows []statistics.CashRowDelta) error {
	if len(rows) == 0 {
		return nil
	}
	n := len(rows)
	var (
		offsets, merchants, types = make([]int32, n), make([]int32, n), make([]int32, n)
		localDays, utcDays        = make([]time.Time, n), make([]time.Time, n)
		currencies, amounts       = make([]string, n), make([]string, n)
		counts                    = make([]int64, n)
	)
	for i, r := range rows {
		offsets[i], localDays[i], utcDays[i], merchants[i] = int32(r.Offset), r.LocalDay, r.UTCDay, r.MerchantID
		types[i], currencies[i], counts[i], amounts[i] = r.Type, r.Currency, r.N, r.Amount
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO stats_cash AS t (utc_offset, local_day, utc_day, merchant_id, transaction_type, currency, n, amount)
		SELECT o::smallint, l, u, m, ty::smallint, cur, n, a::numeric
		FROM unnest($1::int[], $2::date[], $3::date[], $4::int[], $5::int[], $6::text[], $7::bigint[], $8::text[])
			AS x (o, l, u, m, ty, cur, n, a)
		ON CONFLICT (utc_offset, local_day, utc_day, merchant_id, transaction_type, currency)
		DO UPDATE SET n = t.n + excluded.n, amount = t.amount + excluded.amount`,
		offsets, localDays, utcDays, merchants, types, currencies, counts, amounts)
	if err != nil {
		return fmt.Errorf("upsert stats_cash: %w", err)
	}
	return nil
}

func upsertNames(ctx context.Context, tx pgx.Tx, table string, names map[int32]string) error {
	if len(names) == 0 {
		return nil
	}
	ids := make([]int32, 0, len(names))
	for id := range names {
		ids = append(ids, id)
	}
	sortInt32(ids)
	vals := make([]string, len(ids))
	for i, id := range ids {
		vals[i] = names[id]
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO `+table+` AS t (id, name) SELECT * FROM unnest($1::int[], $2::text[])
		ON CONFLICT (id) DO UPDATE SET name = excluded.name WHERE t.name <> excluded.name`, ids, vals)
	if err != nil {
		return fmt.Errorf("upsert %s: %w", table, err)
	}
	return nil
}

func sortInt32(v []int32) {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j] < v[j-1]; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

// ApplyRates implements statistics.Store.
func (s *Store) ApplyRates(ctx context.Context, rates []statistics.Rate) error {
	newest := map[string]statistics.Rate{}
	for _, r := range rates {
		k := r.Currency + " " + r.EffectiveFrom.Format(time.DateOnly)
		if cur, ok := newest[k]; !ok || r.ID > cur.ID {
			newest[k] = r
		}
	}
	if len(newest) == 0 {
		return nil
	}
	var (
		currencies, days, values []string
		ids                      []int64
	)
	for _, r := range newest {
		currencies = append(currencies, r.Currency)
		days = append(days, r.EffectiveFrom.Format(time.DateOnly))
		values = append(values, r.USDRate)
		ids = append(ids, r.ID)
	}
	_, err := s.pool.Exec(ctx, `
		INSERT INTO rates AS t (currency, effective_from, usd_rate, rate_id)
		SELECT c, d::date, v::numeric, i FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS u (c, d, v, i)
		ON CONFLICT (currency, effective_from)
		DO UPDATE SET usd_rate = excluded.usd_rate, rate_id = excluded.rate_id WHERE t.rate_id < excluded.rate_id`,
		currencies, days, values, ids)
	if err != nil {
		return fmt.Errorf("upsert rates: %w", err)
	}
	return nil
}

// HasRate implements statistics.Store.
func (s *Store) HasRate(ctx context.Context, currency string) (bool, error) {
	var ok bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM rates WHERE currency = $1)`, currency).Scan(&ok); err != nil {
		return false, fmt.Errorf("look up rates of %s: %w", currency, err)
	}
	return ok, nil
}

// Reset implements statistics.RebuildStore.
func (s *Store) Reset(ctx context.Context) error {
	return pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `TRUNCATE tx_state, stats_hour, stats_day, stats_month, stats_minute, stats_cash`); err != nil {
			return fmt.Errorf("truncate statistics: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE progress SET rebuild_started_at = clock_timestamp()`); err != nil {
			return fmt.Errorf("mark rebuild started: %w", err)
		}
		return nil
	})
}

// PutStates implements statistics.RebuildStore: one upsert of the batch's
// states, each replacing the stored one only over a lower version (a
// placeholder's is 0), and no rollup written. It keeps the live consumer's
// lock order (tx_state rows in id order, then names, then progress): a live
// batch that holds one of these rows makes the upsert wait for it and then
// compare with what it committed, and a live batch that meets a row upserted
// here waits for this commit and then moves its counts from this state. The
// commit does not wait for the WAL flush: a rebuild cut short by a crash is
// started over (NeedsRebuild), and BuildRollups' own commit, which marks it
// finished, is flushed with everything before it.
func (s *Store) PutStates(ctx context.Context, states []statistics.State) (int, error) {
	states = statistics.Newest(states)
	if len(states) == 0 {
		return 0, nil
	}
	n := len(states)
	var (
		ids, versions                       = make([]int64, n), make([]int64, n)
		hours, minutes                      = make([]time.Time, n), make([]time.Time, n)
		merchants, collabs, providers, stat = make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
		types                               = make([]int32, n)
		currencies, amounts                 = make([]string, n), make([]string, n)
		notes                               = newBatchNotes()
	)
	for i, st := range states {
		ids[i], versions[i], hours[i], minutes[i] = st.ID, st.Version, statistics.Hour.Bucket(st.CreatedAt), statistics.Minute.Bucket(st.CreatedAt)
		merchants[i], collabs[i], providers[i], stat[i], types[i] = st.MerchantID, st.CollabID, st.ProviderID, st.Status, st.Type
		currencies[i], amounts[i] = st.Currency, st.Amount
		notes.add(st)
	}
	applied := 0
	put := func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
			return fmt.Errorf("set synchronous_commit: %w", err)
		}
		tag, err := tx.Exec(ctx, `
			INSERT INTO tx_state AS t (id, version, created_hour, merchant_id, collab_id, provider_id, status,
				transaction_type, currency, amount, created_minute)
			SELECT id, version, created_hour, merchant_id, collab_id, provider_id, status,
				transaction_type::smallint, currency, amount::numeric, created_minute
			FROM unnest($1::bigint[], $2::bigint[], $3::timestamptz[], $4::int[], $5::int[], $6::int[], $7::int[], $8::int[], $9::text[], $10::text[], $11::timestamptz[])
				AS u (id, version, created_hour, merchant_id, collab_id, provider_id, status, transaction_type, currency, amount, created_minute)
			ON CONFLICT (id) DO UPDATE SET version = excluded.version, created_hour = excluded.created_hour,
				merchant_id = excluded.merchant_id, collab_id = excluded.collab_id, provider_id = excluded.provider_id,
				status = excluded.status, transaction_type = excluded.transaction_type, currency = excluded.currency,
				amount = excluded.amount, created_minute = excluded.created_minute
			WHERE t.version < excluded.version`,
			ids, versions, hours, merchants, collabs, providers, stat, types, currencies, amounts, minutes)
		if err != nil {
			return fmt.Errorf("put states: %w", err)
		}
		applied = int(tag.RowsAffected())
		return notes.write(ctx, tx, applied > 0)
	}
	// A live batch locks the rows it inserts first and the others after, so
	// it may hold a higher id than one it waits for, and Postgres then
	// breaks the cycle by failing one of the two transactions. The live
	// batch comes again from the stream; this one is tried again here (it
	// only compares and sets, so trying again changes nothing twice).
	var err error
	for attempt := 1; ; attempt++ {
		err = pgdb.InTx(ctx, s.pool, put)
		var pgErr *pgconn.PgError
		if err == nil || attempt == putAttempts || !errors.As(err, &pgErr) || pgErr.Code != codeDeadlock {
			break
		}
	}
	if err != nil {
		return 0, err
	}
	return applied, nil
}

// putAttempts bounds how often PutStates tries a page that lost a deadlock.
const putAttempts = 5

// codeDeadlock is Postgres's SQLSTATE of a transaction failed to break a
// deadlock.
const codeDeadlock = "40P01"

// buildRollupsSQL computes every rollup from tx_state: the hour rollup
// grouped from the states, the day and month rollups from the hour and day
// rollups, the cash rollup from the successful hour rows (merged over
// collab and provider first, then spread over the 25 offsets, as migration
// 0003 fills it), the minute rollup from the states made since $1. Rows
// are written in key order, so that a range of buckets (or of one offset's
// local days) is read from adjacent pages rather than one page per row (a
// year of one offset: ≈ 100 pages instead of ≈ 2,700). These
// are the sums Apply keeps by moving each state between rows, so a rollup
// built here and then kept by Apply equals one kept by Apply throughout
// (except for rows Apply left at zero, which no query reads).
var buildRollupsSQL = []string{
	`INSERT INTO stats_hour (bucket, merchant_id, collab_id, provider_id, status, transaction_type, currency, n, amount)
	SELECT created_hour, merchant_id, collab_id, provider_id, status, transaction_type, currency, count(*), sum(amount)
	FROM tx_state WHERE version > 0 GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, 6, 7`,
	`INSERT INTO stats_day (bucket, merchant_id, collab_id, provider_id, status, transaction_type, currency, n, amount)
	SELECT date_trunc('day', bucket, 'UTC'), merchant_id, collab_id, provider_id, status, transaction_type, currency, sum(n), sum(amount)
	FROM stats_hour GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, 6, 7`,
	`INSERT INTO stats_month (bucket, merchant_id, collab_id, provider_id, status, transaction_type, currency, n, amount)
	SELECT date_trunc('month', bucket, 'UTC'), merchant_id, collab_id, provider_id, status, transaction_type, currency, sum(n), sum(amount)
	FROM stats_day GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, 6, 7`,
	`INSERT INTO stats_cash (utc_offset, local_day, utc_day, merchant_id, transaction_type, currency, n, amount)
	SELECT o, ((h.bucket AT TIME ZONE 'UTC') + make_interval(hours => o))::date, (h.bucket AT TIME ZONE 'UTC')::date,
		h.merchant_id, h.transaction_type, h.currency, sum(h.n), sum(h.amount)
	FROM (SELECT bucket, merchant_id, transaction_type, currency, sum(n) AS n, sum(amount) AS amount
		FROM stats_hour WHERE status = 4 GROUP BY 1, 2, 3, 4) h
	CROSS JOIN generate_series(-12, 12) AS o
	GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`,
	`INSERT INTO stats_minute (bucket, merchant_id, collab_id, provider_id, status, transaction_type, currency, n, amount)
	SELECT created_minute, merchant_id, collab_id, provider_id, status, transaction_type, currency, count(*), sum(amount)
	FROM tx_state WHERE version > 0 AND created_minute >= $1 GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, 6, 7`,
}

// BuildRollups implements statistics.RebuildStore. One transaction: it
// first takes tx_state in SHARE mode, which waits for the live batches in
// flight and holds new ones until the commit (their events wait in the
// stream), so that the rollups it writes are exactly the sums of the states
// it reads and every later live batch moves counts from states already in
// them. The rollups' rows are deleted rather than truncated, so that
// readers keep answering from the old rows until the commit.
func (s *Store) BuildRollups(ctx context.Context, minuteHorizon time.Time) error {
	err := pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `LOCK TABLE tx_state IN SHARE MODE`); err != nil {
			return fmt.Errorf("lock states: %w", err)
		}
		if _, err := tx.Exec(ctx, `SET LOCAL work_mem = '256MB'`); err != nil {
			return fmt.Errorf("set work_mem: %w", err)
		}
		for _, t := range []string{"stats_hour", "stats_day", "stats_month", "stats_cash", "stats_minute"} {
			if _, err := tx.Exec(ctx, `DELETE FROM `+t); err != nil {
				return fmt.Errorf("empty %s: %w", t, err)
			}
		}
		for _, q := range buildRollupsSQL {
			var args []any
			if strings.Contains(q, "$1") {
				args = []any{minuteHorizon}
			}
			if _, err := tx.Exec(ctx, q, args...); err != nil {
				return fmt.Errorf("build rollups: %w", err)
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE progress SET rebuild_finished_at = clock_timestamp()`); err != nil {
			return fmt.Errorf("mark rebuild finished: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Fresh statistics for the planner, and the deleted rows' space free
	// for the live updates: every rollup was rewritten.
	if _, err := s.pool.Exec(ctx, `VACUUM (ANALYZE) stats_hour, stats_day, stats_month, stats_cash, stats_minute`); err != nil {
		return fmt.Errorf("vacuum rollups: %w", err)
	}
	if _, err := s.pool.Exec(ctx, `ANALYZE tx_state`); err != nil {
		return fmt.Errorf("analyze states: %w", err)
	}
	return nil
}

// FinishRebuild implements statistics.RebuildStore.
func (s *Store) FinishRebuild(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, `UPDATE progress SET rebuild_finished_at = clock_timestamp()`); err != nil {
		return fmt.Errorf("mark rebuild finished: %w", err)
	}
	return nil
}

// NeedsRebuild implements statistics.RebuildStore. A rebuild may finish
// without having started (FinishRebuild alone, when the gateway had no
// transactions): a start that is NULL is no unfinished rebuild, so the
// comparison is read as false rather than left NULL.
func (s *Store) NeedsRebuild(ctx context.Context) (bool, error) {
	var need bool
	err := s.pool.QueryRow(ctx, `
		SELECT rebuild_finished_at IS NULL OR (rebuild_started_at > rebuild_finished_at) IS TRUE FROM progress`).Scan(&need)
	if err != nil {
		return false, fmt.Errorf("read rebuild progress: %w", err)
	}
	return need, nil
}

// merchantArgs starts a query's arguments: $1 is the merchants when the
// query is limited to some.
func merchantArgs(merchants []int32) []any {
	if merchants == nil {
		return nil
	}
	return []any{merchants}
}

// segmentsSQL writes one SELECT of cols per segment, each reading its
// rollup over its range and the query's merchants, joined by UNION ALL.
func segmentsSQL(segs []statistics.Segment, cols, where string, args *[]any, merchants []int32) string {
	var b strings.Builder
	for i, sg := range segs {
		if i > 0 {
			b.WriteString(" UNION ALL ")
		}
		*args = append(*args, sg.From, sg.To)
		fmt.Fprintf(&b, "SELECT %s FROM %s WHERE bucket >= $%d AND bucket < $%d", cols, rollupTables[sg.Grain], len(*args)-1, len(*args))
		if where != "" {
			b.WriteString(" AND " + where)
		}
		if merchants != nil {
			b.WriteString(" AND merchant_id = ANY($1)")
		}
	}
	if len(segs) == 0 {
		fmt.Fprintf(&b, "SELECT %s FROM stats_hour WHERE false", cols)
	}
	return b.String()
}

// Figures implements statistics.Store: one query for the counts (months,
// days and edge hours) and one for the successful amounts (whole local days
// from the cash rollup, a partial last day from the hour rollup) converted
// at the rate in force on each row's UTC day.
//
// It takes two round trips: the BEGIN (a read-only snapshot that starts no
// parallel workers), both queries and the as-of time go in one pipeline,
// the names of the merchants and providers they met and the ROLLBACK in a
// second. A round trip costs little on an idle machine, but each one waits
// for a core on a busy one: the seven this read took before (issue 31) were
// a large part of its p95 at a load average of 6 to 16.
func (s *Store) Figures(ctx context.Context, q statistics.Query) (statistics.Figures, error) {
	f := statistics.Figures{MerchantNames: map[int32]string{}, ProviderNames: map[int32]string{}}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return f, fmt.Errorf("statistics read: %w", err)
	}
	// A connection still in the transaction (an error before the ROLLBACK
	// ran) is closed by the pool on Release rather than reused.
	defer conn.Release()
	if err := readFigures(ctx, conn.Conn(), q, &f); err != nil {
		if conn.Conn().PgConn().TxStatus() != 'I' {
			_, _ = conn.Exec(context.WithoutCancel(ctx), `ROLLBACK`)
		}
		return f, err
	}
	return f, nil
}

// readFigures reads q's figures into f in Figures' two round trips.
func readFigures(ctx context.Context, conn *pgx.Conn, q statistics.Query, f *statistics.Figures) error {
	countSQL, countArgs := countQuery(q)
	cashSQL, cashArgs := cashQuery(q)
	b := &pgx.Batch{}
	b.Queue(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`)
	// Each statement reads a few thousand rollup rows: starting parallel
	// workers costs more than it saves, and on a busy machine a worker
	// waiting for a core holds up the whole answer (a year's counts with
	// two workers at a load average of 17: 248 ms, 175 of them in one
	// worker's scan of 2,731 month rows).
	b.Queue(`SET LOCAL max_parallel_workers_per_gather = 0`)
	merchantIDs, providerIDs := map[int32]bool{}, map[int32]bool{}
	b.Queue(countSQL, countArgs...).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var c statistics.CountRow
			if err := rows.Scan(&c.MerchantID, &c.ProviderID, &c.Status, &c.N); err != nil {
				return fmt.Errorf("scan counts: %w", err)
			}
			f.Counts = append(f.Counts, c)
			merchantIDs[c.MerchantID], providerIDs[c.ProviderID] = true, true
		}
		return rows.Err()
	})
	b.Queue(cashSQL, cashArgs...).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var c statistics.CashRow
			var typ int16
			if err := rows.Scan(&typ, &c.Day, &c.MerchantID, &c.Unconverted, &c.N, &c.Amount); err != nil {
				return fmt.Errorf("scan cash: %w", err)
			}
			c.Type = int32(typ)
			f.Cash = append(f.Cash, c)
			if c.MerchantID != 0 {
				merchantIDs[c.MerchantID] = true
			}
		}
		return rows.Err()
	})
	b.Queue(`SELECT as_of FROM progress`).QueryRow(func(row pgx.Row) error {
		var asOf *time.Time
		if err := row.Scan(&asOf); err != nil {
			return fmt.Errorf("read as_of: %w", err)
		}
		if asOf != nil {
			f.AsOf = *asOf
		}
		return nil
	})
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("statistics read: %w", err)
	}

	b = &pgx.Batch{}
	queueNames(b, "merchants", merchantIDs, f.MerchantNames)
	queueNames(b, "providers", providerIDs, f.ProviderNames)
	b.Queue(`ROLLBACK`)
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("statistics read: %w", err)
	}
	return nil
}

// countQuery writes the query of q's counts by merchant, provider and
// status.
func countQuery(q statistics.Query) (string, []any) {
	args := merchantArgs(q.Merchants)
	return `SELECT merchant_id, provider_id, status, sum(n)::bigint FROM (` +
		segmentsSQL(q.Counts, "merchant_id, provider_id, status, n", "", &args, q.Merchants) +
		`) x GROUP BY 1, 2, 3 HAVING sum(n) <> 0`, args
}

// cashQuery writes the query of q's successful amounts. Rows are read as
// (series day, UTC day, merchant, type, currency); the conversion factor is
// looked up once per currency and UTC day, and an amount is converted
// exactly (amount × factor, rounded to cents once per figure). A currency
// with no rate on a day gets no factor: its amounts come back unconverted,
// in their own currency, marked by uc. One pass groups the total, the
// series days and the merchants. The factors are MATERIALIZED: inlined,
// Postgres evaluates their rate look-ups once per row instead of once per
// currency and day (3.6 s instead of 0.4 s for a year of 20 merchants).
func cashQuery(q statistics.Query) (string, []any) {
	args := merchantArgs(q.Merchants)
	merchantFilter := ""
	if q.Merchants != nil {
		merchantFilter = " AND merchant_id = ANY($1)"
	}
	p := q.Cash
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	lastDay := p.FirstDay.AddDate(0, 0, p.Days)
	first := arg(p.FirstDay)
	base := `SELECT local_day - ` + first + `::date AS day, utc_day, merchant_id, transaction_type, currency, n, amount
			FROM stats_cash WHERE utc_offset = ` + arg(int16(p.Offset)) + `::smallint AND local_day >= ` + first +
		`::date AND local_day < ` + arg(lastDay) + `::date` + merchantFilter
	for _, sg := range p.Tail {
		// The hours and minutes of a partial day, in their series day.
		base += `
			UNION ALL
			SELECT ` + arg(sg.Day) + `::int, (bucket AT TIME ZONE 'UTC')::date, merchant_id, transaction_type, currency, n, amount
			FROM ` + rollupTables[sg.Grain] + ` WHERE status = 4 AND bucket >= ` + arg(sg.From) + ` AND bucket < ` + arg(sg.To) + merchantFilter
	}
	cur := arg(q.Currency)
	return `
		WITH b AS (` + base + `
		), r AS MATERIALIZED (
			SELECT k.currency, k.utc_day,
				CASE WHEN k.currency = ` + cur + `::text THEN 1::numeric ELSE src.r / dst.r END AS f
			FROM (SELECT DISTINCT currency, utc_day FROM b) k
			CROSS JOIN LATERAL (SELECT CASE WHEN k.currency = 'USD' THEN 1::numeric ELSE (
				SELECT usd_rate FROM rates WHERE currency = k.currency AND effective_from <= k.utc_day
				ORDER BY effective_from DESC LIMIT 1) END AS r) src
			CROSS JOIN LATERAL (SELECT CASE WHEN ` + cur + `::text = 'USD' THEN 1::numeric ELSE (
				SELECT usd_rate FROM rates WHERE currency = ` + cur + `::text AND effective_from <= k.utc_day
				ORDER BY effective_from DESC LIMIT 1) END AS r) dst
		), d AS (
			SELECT b.day, b.merchant_id, b.transaction_type, b.n,
				CASE WHEN r.f IS NULL THEN b.currency ELSE '' END AS uc,
				CASE WHEN r.f IS NULL THEN b.amount ELSE b.amount * r.f END AS amount
			FROM b JOIN r ON r.currency = b.currency AND r.utc_day = b.utc_day
		)
		SELECT transaction_type, CASE WHEN GROUPING(day) = 0 THEN day ELSE -1 END,
			CASE WHEN GROUPING(merchant_id) = 0 THEN merchant_id ELSE 0 END, uc, sum(n)::bigint,
			(CASE WHEN uc = '' THEN round(sum(amount), 2) ELSE sum(amount) END)::text
		FROM d
		GROUP BY GROUPING SETS ((transaction_type, uc), (transaction_type, uc, day), (transaction_type, uc, merchant_id))
		HAVING sum(n) <> 0 OR sum(amount) <> 0`, args
}

// queueNames queues the read of the names of ids from table (merchants or
// providers) into into.
func queueNames(b *pgx.Batch, table string, ids map[int32]bool, into map[int32]string) {
	if len(ids) == 0 {
		return
	}
	list := make([]int32, 0, len(ids))
	for id := range ids {
		list = append(list, id)
	}
	b.Queue(`SELECT id, name FROM `+table+` WHERE id = ANY($1)`, list).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var id int32
			var name string
			if err := rows.Scan(&id, &name); err != nil {
				return fmt.Errorf("scan %s: %w", table, err)
			}
			into[id] = name
		}
		return rows.Err()
	})
}

// pruneBatch bounds one DELETE of PruneMinutes.
const pruneBatch = 10_000

// PruneMinutes implements statistics.Store, in batches so that no
// statement holds many locks.
func (s *Store) PruneMinutes(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		tag, err := s.pool.Exec(ctx, `DELETE FROM stats_minute WHERE ctid = ANY(ARRAY(
			SELECT ctid FROM stats_minute WHERE bucket < $1 LIMIT $2))`, before, pruneBatch)
		if err != nil {
			return total, fmt.Errorf("prune minute buckets: %w", err)
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < pruneBatch {
			return total, nil
		}
	}
}
