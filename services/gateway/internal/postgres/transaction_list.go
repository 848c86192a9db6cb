package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/gateway/internal/money"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// conditions builds a WHERE clause with numbered arguments.
type conditions struct {
	parts []string
	args  []any
}

// add appends a condition; each "?" in cond is the next argument.
func (c *conditions) add(cond string, args ...any) {
	c.parts = append(c.parts, c.fill(cond, args...))
}

// fill numbers the "?" of cond with args appended to c, without adding
// cond to c's parts.
func (c *conditions) fill(cond string, args ...any) string {
	for _, a := range args {
		c.args = append(c.args, a)
		cond = strings.Replace(cond, "?", "$"+strconv.Itoa(len(c.args)), 1)
	}
	return cond
}

func (c *conditions) where() string { return whereOf(c.parts) }

func whereOf(parts []string) string {
	if len(parts) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(parts, " AND ")
}

// listConditions is the WHERE clause of a list filter, merchant scope
// included. Every condition names a column of the range indexes (collab,
// merchant or created_at) or of an exact-match index (migration 0006).
func listConditions(f payment.ListFilter) conditions {
	c := filterConditions(f)
	if f.ID != 0 || f.Reference != "" {
		return c
	}
	if f.From != nil {
		c.add("created_at >= ?", *f.From)
	}
	if f.To != nil {
		c.add("created_at <= ?", *f.To)
	}
	return c
}

// filterConditions is listConditions without the created_at range. Its
// scope, collab, merchant, type, status, currency and payment method type
// conditions name columns that the rollups of migration 0010 share with
// transactions.
func filterConditions(f payment.ListFilter) conditions {
	var c conditions
	if !f.Scope.All {
		c.add("merchant_id = ANY(?::integer[])", f.Scope.MerchantIDs)
	}
	if f.CollabID != 0 {
		c.add("collab_id = ?", f.CollabID)
	}
	if f.MerchantID != 0 {
		c.add("merchant_id = ?", f.MerchantID)
	}
	switch {
	case f.ID != 0:
		c.add("(id, created_at) = (SELECT id, created_at FROM transaction_keys WHERE id = ?)", f.ID)
		return c
	case f.Reference != "":
		c.add("(id, created_at) = (SELECT id, created_at FROM transaction_keys WHERE reference_id = ?)", f.Reference)
		return c
	}
	if f.Type != 0 {
		c.add("transaction_type = ?", int16(f.Type))
	}
	switch len(f.Statuses) {
	case 0:
	case 1:
		// An equality, not = ANY: then the (status, created_at) index
		// returns the page in order.
		c.add("status = ?", int16(f.Statuses[0]))
	default:
		st := make([]int16, len(f.Statuses))
		for i, s := range f.Statuses {
			st[i] = int16(s)
		}
		c.add("status = ANY(?::smallint[])", st)
	}
	if f.ProviderTID != "" {
		c.add("provider_transaction_id = ?", f.ProviderTID)
	}
	// The exact matches of the client id, payment method value and IP name
	// their partial index's predicate (<> ''), which the value they compare
	// with (never empty) meets anyway: a generic plan (exactMatch), made
	// before the value is known, could not use the index otherwise.
	if f.MerchantCID != "" {
		c.add("merchant_client_id = ? AND merchant_client_id <> ''", f.MerchantCID)
	}
	if f.Nonce != "" {
		c.add("(id, created_at) IN (SELECT id, created_at FROM transaction_keys WHERE nonce = ?)", f.Nonce)
	}
	if f.MinAmount != nil {
		c.add("amount >= ?::numeric", f.MinAmount.String())
	}
	if f.MaxAmount != nil {
		c.add("amount <= ?::numeric", f.MaxAmount.String())
	}
	if f.Currency != "" {
		c.add("currency = ?", f.Currency)
	}
	if f.PaymentMethodValue != "" {
		c.add("payment_method_value = ? AND payment_method_value <> ''", f.PaymentMethodValue)
	}
	if f.PaymentMethodType != 0 {
		c.add("payment_method_type = ?", f.PaymentMethodType)
	}
	if f.PaymentIP != "" {
		c.add("payment_ip_address = ? AND payment_ip_address <> ''", f.PaymentIP)
	}
	return c
}

// exactMatch reports whether f looks for a value that only a few rows hold:
// an id or reference (the search), a nonce, a provider transaction id, a
// merchant client id, a payment method value or an IP. Its statements
// read a few index entries of every partition and then a few rows, in
// well under a millisecond; planning them for every monthly partition and
// its indexes took 2-9 ms at 23 partitions (bench/RESULTS.md, "Exact
// matches on partitions at 10 M rows"). List runs them with a generic
// plan (plan_cache_mode force_generic_plan, for that transaction only):
// made on a connection's first such request and
// kept with the connection's prepared statement, it prunes the partitions
// of a date range at run time. Every other filter keeps the planner's
// custom plans, chosen for its values (a date range, a status, an amount).
func exactMatch(f payment.ListFilter) bool {
	return f.ID != 0 || f.Reference != "" || f.ProviderTID != "" || f.MerchantCID != "" || f.Nonce != "" ||
		f.PaymentMethodValue != "" || f.PaymentIP != ""
}

// beginExact and genericPlans begin List's transaction for an exact match
// (exactMatch, listExact): one snapshot for the count and the page, and
// generic plans for that transaction only.
const (
	beginExact   = `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`
	genericPlans = `SET LOCAL plan_cache_mode = force_generic_plan`
)

// rollupCounts reports whether the rollups can count f: it filters on
// nothing they do not keep. The exact-match filters have small indexes of
// their own and are counted from rows; an amount range has to be.
func rollupCounts(f payment.ListFilter) bool {
	return f.ID == 0 && f.Reference == "" && f.ProviderTID == "" && f.MerchantCID == "" && f.Nonce == "" &&
		f.MinAmount == nil && f.MaxAmount == nil && f.PaymentMethodValue == "" && f.PaymentIP == ""
}

// window is the half-open time range [lo, hi); a nil end is open.
type window struct{ lo, hi *time.Time }

func (w window) empty() bool { return w.lo != nil && w.hi != nil && !w.lo.Before(*w.hi) }

// conds are the conditions on col that keep it inside w.
func (w window) conds(c *conditions, col string) []string {
	var out []string
	if w.lo != nil {
		out = append(out, c.fill(col+" >= ?", *w.lo))
	}
	if w.hi != nil {
		out = append(out, c.fill(col+" < ?", *w.hi))
	}
	return out
}

// rangeParts is a created_at range [from, to] (either end open) cut along
// UTC hours and days. The whole hours of hours are counted from the rollups
// (whole days from the daily one, the other hours from the hourly one) and
// the deltas. An end that falls inside an hour is counted from the
// transactions themselves (edge): either the part of its hour inside the
// range is added, or hours reaches to the hour's bound and the part outside
// the range is subtracted, whichever is shorter. The console's ranges are
// whole days of whole-hour time zones ending at 23:59:59.999, so their
// edges hold a millisecond of rows at most.
type rangeParts struct {
	hours    window
	days     *window
	dayHours []window
	edges    []edge
}

// edge is a created_at condition whose rows are added (sign 1) or
// subtracted (sign -1).
type edge struct {
	sign int
	cond func(c *conditions) []string
}

func ceilTo(t time.Time, d time.Duration) time.Time {
	if f := t.Truncate(d); !f.Equal(t) {
		return f.Add(d)
	}
	return t
}

// cutRange cuts [from, to]; ok is false when the range holds no whole hour
// once its edges are chosen (then the rows are counted). created_at has
// microsecond precision: to = 10:59:59.999999 ends the hour 10:00.
func cutRange(from, to *time.Time) (p rangeParts, ok bool) {
	if from != nil {
		lo := *from
		floor, ceil := lo.Truncate(time.Hour), ceilTo(lo, time.Hour)
		switch {
		case floor.Equal(lo):
			p.hours.lo = &floor
		case ceil.Sub(lo) <= lo.Sub(floor):
			p.hours.lo = &ceil
			p.edges = append(p.edges, edge{1, func(c *conditions) []string {
				return []string{c.fill("created_at >= ?", lo), c.fill("created_at < ?", ceil)}
			}})
		default:
			p.hours.lo = &floor
			p.edges = append(p.edges, edge{-1, func(c *conditions) []string {
				return []string{c.fill("created_at >= ?", floor), c.fill("created_at < ?", lo)}
			}})
		}
	}
	if to != nil {
		hi := *to
		end := hi.Add(time.Microsecond)
		floor, ceil := end.Truncate(time.Hour), ceilTo(end, time.Hour)
		switch {
		case floor.Equal(end):
			p.hours.hi = &floor
		case end.Sub(floor) <= ceil.Sub(end):
			p.hours.hi = &floor
			p.edges = append(p.edges, edge{1, func(c *conditions) []string {
				return []string{c.fill("created_at >= ?", floor), c.fill("created_at <= ?", hi)}
			}})
		default:
			p.hours.hi = &ceil
			p.edges = append(p.edges, edge{-1, func(c *conditions) []string {
				return []string{c.fill("created_at > ?", hi), c.fill("created_at < ?", ceil)}
			}})
		}
	}
	if p.hours.empty() {
		return p, false
	}
	var days window
	if p.hours.lo != nil {
		d := ceilTo(*p.hours.lo, 24*time.Hour)
		days.lo = &d
	}
	if p.hours.hi != nil {
		d := p.hours.hi.Truncate(24 * time.Hour)
		days.hi = &d
	}
	if days.empty() {
		p.dayHours = []window{p.hours}
		return p, true
	}
	p.days = &days
	if days.lo != nil && days.lo.After(*p.hours.lo) {
		p.dayHours = append(p.dayHours, window{lo: p.hours.lo, hi: days.lo})
	}
	if days.hi != nil && days.hi.Before(*p.hours.hi) {
		p.dayHours = append(p.dayHours, window{lo: days.hi, hi: p.hours.hi})
	}
	return p, true
}

// rollupTotals is the count/totals statement over the rollups for f (which
// rollupCounts accepts) and the parts of its range. Its rows are the
// per-currency counts and sums (day NULL) and the count of each UTC day
// (currency NULL), with which List narrows the page to the days it lies in.
func rollupTotals(f payment.ListFilter, p rangeParts) Statement {
	c := filterConditions(f)
	shared := c.parts
	var branches []string
	from := func(what, table string, conds []string, tail string) {
		branches = append(branches, `SELECT `+what+` FROM `+table+whereOf(append(slices.Clip(shared), conds...))+tail)
	}
	const hourly = "date_trunc('day', hour, 'UTC'), currency, n, amount"
	if p.days != nil {
		from("day, currency, n, amount", "transaction_totals_daily", p.days.conds(&c, "day"), "")
	}
	for _, w := range p.dayHours {
		from(hourly, "transaction_totals_hourly", w.conds(&c, "hour"), "")
	}
	from(hourly, "transaction_totals_delta", p.hours.conds(&c, "hour"), "")
	for _, e := range p.edges {
		what := "date_trunc('day', created_at, 'UTC'), currency, count(*), sum(amount)"
		if e.sign < 0 {
			what = "date_trunc('day', created_at, 'UTC'), currency, -count(*), -sum(amount)"
		}
		from(what, "transactions", e.cond(&c), " GROUP BY 1, 2")
	}
	return Statement{`SELECT day, currency, sum(n)::bigint, sum(amount)::text FROM (` + strings.Join(branches, " UNION ALL ") +
		`) AS t (day, currency, n, amount) GROUP BY GROUPING SETS ((currency), (day)) HAVING sum(n) <> 0`, c.args}
}

// rowTotals is the count/totals statement over the matching rows, shaped
// as rollupTotals' but without days.
func rowTotals(f payment.ListFilter) Statement {
	c := listConditions(f)
	return Statement{`SELECT NULL::timestamptz, currency, count(*), sum(amount)::text FROM transactions` + c.where() +
		` GROUP BY currency`, c.args}
}

const totalsBuilt = `SELECT EXISTS (SELECT 1 FROM transaction_totals_state WHERE built_at IS NOT NULL)`

// Statement is an SQL statement with its arguments.
type Statement struct {
	SQL  string
	Args []any
}

// ListQuerier runs the list's statements: a pool, a connection or a
// transaction.
type ListQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// ListStatements returns the statements List sends for f: the count and
// per-currency totals, from the rollups when they are built and can count f
// (fromRollups), from the matching rows otherwise; and the page. It runs
// the first on q, because the page depends on its answer (List runs both
// in one snapshot). A search's first page is its own count (pageIsCount):
// then totals is empty (no SQL), as List sends none.
// services/gateway/cmd/listbench explains them.
func ListStatements(ctx context.Context, q ListQuerier, f payment.ListFilter) (totals Statement, fromRollups bool, page Statement, err error) {
	f = microseconds(f)
	if pageIsCount(f) {
		return Statement{}, false, pageStatement(f, counted{}), nil
	}
	totals, c, err := listCount(ctx, q, f)
	if err != nil {
		return totals, false, page, err
	}
	return totals, c.days != nil, pageStatement(f, c), nil
}

// microseconds cuts f's range to microseconds, where Postgres compares.
func microseconds(f payment.ListFilter) payment.ListFilter {
	for _, t := range []**time.Time{&f.From, &f.To} {
		if *t != nil {
			v := (*t).Truncate(time.Microsecond)
			*t = &v
		}
	}
	return f
}

// counted is the answer of the count/totals statement.
type counted struct {
	total  int
	totals map[string]string
	// days are the UTC days with matching rows and their counts, newest
	// first; nil when the rows were counted.
	days []dayCount
}

type dayCount struct {
	day time.Time
	n   int
}

// listCount runs the count/totals statement for f on q: from the rollups
// when they can count f and are built (one round trip with that check),
// else from the matching rows.
func listCount(ctx context.Context, q ListQuerier, f payment.ListFilter) (Statement, counted, error) {
	c := counted{totals: map[string]string{}}
	var st Statement
	var rows pgx.Rows
	var err error
	if parts, ok := cutRange(f.From, f.To); ok && rollupCounts(f) {
		st = rollupTotals(f, parts)
		b := &pgx.Batch{}
		b.Queue(totalsBuilt)
		b.Queue(st.SQL, st.Args...)
		res := q.SendBatch(ctx, b)
		defer res.Close()
		var built bool
		if err := res.QueryRow().Scan(&built); err != nil {
			return st, c, fmt.Errorf("count transactions: %w", err)
		}
		if built {
			rows, err = res.Query()
			c.days = []dayCount{}
		} else if err := res.Close(); err != nil {
			return st, c, fmt.Errorf("count transactions: %w", err)
		}
	}
	if rows == nil && err == nil {
		st = rowTotals(f)
		rows, err = q.Query(ctx, st.SQL, st.Args...)
	}
	if err != nil {
		return st, c, fmt.Errorf("count transactions: %w", err)
	}
	if err := c.read(rows); err != nil {
		return st, c, fmt.Errorf("count transactions: %w", err)
	}
	return st, c, nil
}

// read adds the answer of a count/totals statement (rollupTotals or
// rowTotals) to c, and closes rows.
func (c *counted) read(rows pgx.Rows) error {
	defer rows.Close()
	for rows.Next() {
		var day *time.Time
		var cur *string
		var n int
		var sum string
		if err := rows.Scan(&day, &cur, &n, &sum); err != nil {
			return err
		}
		if day != nil {
			c.days = append(c.days, dayCount{day: *day, n: n})
			continue
		}
		c.total += n
		c.totals[*cur] = sum
	}
	if err := rows.Err(); err != nil {
		return err
	}
	slices.SortFunc(c.days, func(a, b dayCount) int { return b.day.Compare(a.day) })
	return nil
}

// fill sets page's count and, with totals, its per-currency totals from c.
func (c *counted) fill(page *payment.ListPage, totals bool) error {
	page.TotalCount = c.total
	if !totals {
		return nil
	}
	for cur, sum := range c.totals {
		a, err := amountOf(&sum)
		if err != nil {
			return err
		}
		page.Totals[cur] = a
	}
	return nil
}

// pageWindow is the UTC days that hold the rows offset to offset+take-1 of
// the list, newest first, and the number of rows in the days after them;
// an open window without days.
func pageWindow(days []dayCount, offset, take int) (w window, before int) {
	seen := 0
	for _, d := range days {
		if w.hi == nil {
			if seen+d.n <= offset {
				seen += d.n
				continue
			}
			hi := d.day.Add(24 * time.Hour)
			w.hi, before = &hi, seen
		}
		seen += d.n
		lo := d.day
		w.lo = &lo
		if seen >= offset+take {
			break
		}
	}
	return w, before
}

// pageStatement finds the page's ids first, in the index that keeps the
// list's order and with the filters' columns included where it has them,
// and reads only those rows: a deep page skips index entries, not rows.
// With the counts of each day (from the rollups) it looks only in the days
// that hold the page, so that neither a deep page nor a rare value (of a
// column no index keeps in order) walks the whole index.
//
// An exact match (exactMatch) reads its page's rows at once instead: its
// index (or the keys' lookup) gives a few rows per partition, merged in
// created_at order and cut at the page, whose ids would cost the same heap
// reads as the rows themselves; looking them up again probed every
// partition a second time (at 10 M rows, 0.42-0.47 ms against 0.18-0.19 ms
// for the page of a merchant client id, bench/RESULTS.md).
func pageStatement(f payment.ListFilter, counts counted) Statement {
	c := listConditions(f)
	offset := (f.Page - 1) * f.Take
	if exactMatch(f) {
		n := len(c.args)
		return Statement{`SELECT ` + transactionColumns + ` FROM transactions` + c.where() +
			fmt.Sprintf(` ORDER BY created_at DESC, id DESC LIMIT $%d OFFSET $%d`, n+1, n+2), append(c.args, f.Take, offset)}
	}
	w, before := pageWindow(counts.days, offset, f.Take)
	c.parts = append(c.parts, w.conds(&c, "created_at")...)
	n := len(c.args)
	// The outer query repeats the conditions (which its ids meet anyway), so
	// that it looks them up only in the partitions of the filter's dates.
	outer := c.where()
	if outer == "" {
		outer = " WHERE "
	} else {
		outer += " AND "
	}
	return Statement{`SELECT ` + transactionColumns + ` FROM transactions` + outer +
		`id = ANY(ARRAY(SELECT id FROM transactions` + c.where() +
		fmt.Sprintf(` ORDER BY created_at DESC, id DESC LIMIT $%d OFFSET $%d))`, n+1, n+2) + `
		ORDER BY created_at DESC, id DESC`, append(c.args, f.Take, offset-before)}
}

// List implements payment.Store. The count and the per-currency totals
// come first (listCount); the page is read only when it starts before the
// count, within the days that hold it when the rollups counted. Both read
// one snapshot (a read-only repeatable-read transaction), so the page
// agrees with the count. On a read replica (WithReads) the same snapshot
// measures the replica's lag, which the page reports. An exact match runs
// with generic plans, in one round trip (exactMatch, listExact).
func (p *Payments) List(ctx context.Context, f payment.ListFilter) (payment.ListPage, error) {
	f = microseconds(f)
	if exactMatch(f) {
		return p.listExact(ctx, f)
	}
	page := payment.ListPage{Transactions: []payment.Transaction{}, Totals: map[string]money.Amount{}}
	opts := pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	err := pgx.BeginTxFunc(ctx, p.reads, opts, func(tx pgx.Tx) error {
		if p.reads != p.pool {
			var err error
			if page.Lag, err = pgdb.ReplicaLag(ctx, tx); err != nil {
				return err
			}
		}
		_, c, err := listCount(ctx, tx, f)
		if err != nil {
			return err
		}
		if err := c.fill(&page, f.IncludeTotals); err != nil {
			return err
		}
		if (f.Page-1)*f.Take >= c.total {
			return nil
		}
		st := pageStatement(f, c)
		rows, err := tx.Query(ctx, st.SQL, st.Args...)
		if err != nil {
			return fmt.Errorf("select transactions: %w", err)
		}
		return readPage(rows, &page)
	})
	return page, err
}

// readPage appends the transactions of a page statement's answer to page.
func readPage(rows pgx.Rows, page *payment.ListPage) error {
	ts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (payment.Transaction, error) { return scanTransaction(row) })
	if err != nil {
		return fmt.Errorf("select transactions: %w", err)
	}
	page.Transactions = append(page.Transactions, ts...)
	return nil
}

// pageIsCount reports whether f is a search by id or reference's first
// page. Such a search finds one row at most, so that page is its count and
// totals: one statement fewer, each of which starts an index scan in every
// partition.
func pageIsCount(f payment.ListFilter) bool {
	return (f.ID != 0 || f.Reference != "") && f.Page == 1 && f.Take >= 1
}

// listExact is List for an exact match (exactMatch) in one round trip: its
// transaction's BEGIN, the generic-plan setting, the replica's lag when it
// reads one, the count and totals from the matching rows, the page and the
// COMMIT go in one pgx batch. The page does not wait for the count, as a
// date range's does: it needs no days (the rows are counted, not the
// rollups), and a page past the count reads no rows. A failed statement
// aborts the transaction, so the statements after it fail too and the
// COMMIT answers ROLLBACK; a batch cut short leaves the connection inside
// its transaction, and the pool closes such a connection when it comes back.
func (p *Payments) listExact(ctx context.Context, f payment.ListFilter) (page payment.ListPage, err error) {
	page = payment.ListPage{Transactions: []payment.Transaction{}, Totals: map[string]money.Amount{}}
	conn, err := p.reads.Acquire(ctx)
	if err != nil {
		return page, fmt.Errorf("list transactions: %w", err)
	}
	defer conn.Release()
	replica := p.reads != p.pool
	onePage := pageIsCount(f)
	pageSt := pageStatement(f, counted{})
	b := &pgx.Batch{}
	b.Queue(beginExact)
	b.Queue(genericPlans)
	if replica {
		b.Queue(pgdb.ReplicaLagSQL)
	}
	if !onePage {
		totals := rowTotals(f)
		b.Queue(totals.SQL, totals.Args...)
	}
	b.Queue(pageSt.SQL, pageSt.Args...)
	b.Queue("COMMIT")
	br := conn.SendBatch(ctx, b)
	defer func() {
		if cerr := br.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("list transactions: %w", cerr)
		}
	}()
	for _, st := range []string{"begin", "set plan cache mode"} {
		if _, err := br.Exec(); err != nil {
			return page, fmt.Errorf("list transactions: %s: %w", st, err)
		}
	}
	if replica {
		if page.Lag, err = pgdb.ScanReplicaLag(br.QueryRow()); err != nil {
			return page, err
		}
	}
	if !onePage {
		c := counted{totals: map[string]string{}}
		rows, err := br.Query()
		if err == nil {
			err = c.read(rows)
		}
		if err != nil {
			return page, fmt.Errorf("count transactions: %w", err)
		}
		if err := c.fill(&page, f.IncludeTotals); err != nil {
			return page, err
		}
	}
	rows, err := br.Query()
	if err != nil {
		return page, fmt.Errorf("select transactions: %w", err)
	}
	if err := readPage(rows, &page); err != nil {
		return page, err
	}
	if onePage {
		page.TotalCount = len(page.Transactions)
		if f.IncludeTotals {
			for _, t := range page.Transactions {
				page.Totals[t.Currency] = t.Amount
			}
		}
	}
	if tag, err := br.Exec(); err != nil || tag.String() != "COMMIT" {
		return page, fmt.Errorf("list transactions: commit: %w", errors.Join(err, pgx.ErrTxCommitRollback))
	}
	return page, nil
}
