package postgres_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/export"
	"github.com/paygate/paygate/services/gateway/internal/exportfmt"
	"github.com/paygate/paygate/services/gateway/internal/filestore"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

// localFiles is the export files' real local store in a test's directory.
type localFiles struct {
	*filestore.Local
}

func newLocalFiles(t *testing.T) localFiles {
	t.Helper()
	l, err := filestore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return localFiles{l}
}

// count is how many files were committed (temporary ones left out).
func (l localFiles) count() int {
	n := 0
	_ = filepath.WalkDir(l.Dir(), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.HasPrefix(d.Name(), ".") {
			n++
		}
		return nil
	})
	return n
}

// goEncoded is the store without its COPY: the worker reads the rows into
// Go and encodes them (the path every other export takes).
type goEncoded struct{ export.WorkerStore }

// copying is the store with its COPY, counting the copies.
type copying struct {
	*postgres.Files
	copies atomic.Int32
}

func (c *copying) CopyTransactionsCSV(ctx context.Context, f payment.ListFilter, fields []string, tz string, w *exportfmt.CSVCopy) error {
	c.copies.Add(1)
	return c.Files.CopyTransactionsCSV(ctx, f, fields, tz, w)
}

// awkward are values for every text column: each CSV rule (quoting of a
// comma, a quote, CR, LF, a lone CR; the formula guard of = + - @, a tab
// and CR lead), COPY's own escapes (a backslash, \., \N), non-ASCII and
// empty text.
var awkward = []string{
	"", "plain", "a,b", `say "hi"`, "line\nbreak", "lone\rcr", "crlf\r\nend", "tab\tin", "\tlead", "\rlead",
	"\nlead", `back\slash`, `\.`, `\N`, "NULL", "Ñoño 日本語 ✓", "=SUM(A1:A9)", "+63 917", "-2", "@cmd", "'quoted",
	`"`, ",", "\n", "é,\"x\"\n=", " spaces ", "=a,b", "-\"x\"", "\r", "trailing\n", "ünï\r\n,\"",
}

var (
	spring = time.Date(2025, 3, 9, 5, 0, 0, 0, time.UTC)
	autumn = time.Date(2025, 11, 2, 4, 0, 0, 0, time.UTC)
)

const fixtureStep = 7*time.Minute + 13*time.Second + 999999*time.Microsecond

// copyFixture is a schema whose transactions cover every cell the COPY
// formats: it returns the pool, the collabs and their merchants.
func copyFixture(t *testing.T) (*pgxpool.Pool, []int32, []int32) {
	t.Helper()
	ctx := t.Context()
	pool, _ := pgtest.Schema(t, postgres.Migrations)
	if err := postgres.NewStore(pool).SeedDemo(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `SELECT ensure_transaction_partitions(timestamptz '2025-12-31', timestamptz '2025-01-01')`); err != nil {
		t.Fatal(err)
	}
	var collabs, merchants []int32
	rows, err := pool.Query(ctx, `SELECT id, merchant_id FROM collabs ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c, m int32
		if err := rows.Scan(&c, &m); err != nil {
			t.Fatal(err)
		}
		collabs, merchants = append(collabs, c), append(merchants, m)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(collabs) < 3 {
		t.Fatalf("%d demo collabs, want 3 or more", len(collabs))
	}
	statuses := []int16{4, 3, 2, 1, 0, -1, -2, -3, -4, -5, -6, 300, 7, -7}
	// Times around America/New_York's DST changes of 2025 (03-09 07:00Z,
	// 11-02 06:00Z, when 01:00-02:00 comes twice), every 7 min 13.999999 s,
	// and a few elsewhere in the year.
	const n = 260
	for i := range n {
		var created time.Time
		switch {
		case i%3 == 0:
			created = spring.Add(time.Duration(i) * fixtureStep)
		case i%3 == 1:
			created = autumn.Add(time.Duration(i) * fixtureStep)
		default:
			created = time.Date(2025, time.Month(1+i%12), 1+i%28, i%24, i%60, i%60, (i%1000)*1000, time.UTC)
		}
		updated := created.Add(time.Duration(i%5) * time.Hour)
		if i == 7 {
			updated = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC) // the zero time.Time: an empty cell
		}
		k := i % len(collabs)
		txt := func(off int) string { return awkward[(i+off)%len(awkward)] }
		var ptid *string
		if i%4 != 0 {
			s := "ptid-" + txt(3)
			ptid = &s
		}
		var fee *string
		switch i % 5 {
		case 1:
			s := "0.00"
			fee = &s
		case 2:
			s := "-12.50"
			fee = &s
		case 3:
			s := fmt.Sprintf("%d.%02d", i*7, i%100)
			fee = &s
		}
		currencies := []string{"PHP", "USD", "JPY", "KWD", "=X", ""}
		amounts := []string{"0.01", "1.00", "1234.50", "99999999.99", "10.05", fmt.Sprintf("%d.%02d", i*13, i%100)}
		dest := []string{"0.00", "-5.25", "1000000.10", "7.00"}
		if _, err := pool.Exec(ctx, `
			INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
				provider_name, pay_type_name, nonce, merchant_client_id, transaction_type, status, status_message,
				error_message, amount, currency, destination_amount, destination_currency, provider_transaction_id,
				payment_ip_address, payment_method_type, payment_method_value, applied_fee_amount, applied_fee_currency,
				callbacks_delivered, callbacks_total, poll_attempts, created_at, updated_at)
			SELECT $1, c.merchant_id, c.id, c.provider_id, (SELECT pay_type_id FROM collab_pay_types WHERE collab_id = c.id LIMIT 1),
				$2, $3, $4, $5, $6, $7, $8, $9, $10, $11::numeric, $12, $13::numeric, $14, $15, $16, $17, $18, $19::numeric, $20,
				$21, $22, $23, $24, $25
			FROM collabs c WHERE c.id = $26`,
			fmt.Sprintf("%s%d", txt(0), i), txt(1), txt(2), txt(4), fmt.Sprintf("%s#%d", txt(5), i), txt(6),
			1+i%2, statuses[i%len(statuses)], txt(7), txt(8), amounts[i%len(amounts)], currencies[i%len(currencies)],
			dest[i%len(dest)], currencies[(i+1)%len(currencies)], ptid, txt(9), i%3, txt(10), fee,
			currencies[(i+2)%len(currencies)], i%4-1, i%6, i%9, created, updated, collabs[k]); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	if _, err := pool.Exec(ctx, `ANALYZE transactions`); err != nil {
		t.Fatal(err)
	}
	return pool, collabs, merchants
}

// allColumns is every Transactions column, with headers the encoder must
// quote and guard.
func allColumns() []export.ColumnChoice {
	ti, _ := export.TypeOf(export.TypeTransactions)
	cols := make([]export.ColumnChoice, len(ti.Columns))
	for i, c := range ti.Columns {
		cols[i] = export.ColumnChoice{Field: c.Field, Name: c.Name}
	}
	cols[0].Name = "=ID"
	cols[2].Name = "Merchant, \"name\""
	cols[5].Name = "Amount\r\n(PHP)"
	return cols
}

// runExport schedules a file of req (scope) and has w write it; it
// returns the file's bytes and its record.
func runExport(t *testing.T, files *postgres.Files, store localFiles, w *export.Worker, req export.Request, scope merchant.Scope) ([]byte, export.File) {
	t.Helper()
	ctx := t.Context()
	f, err := files.Insert(ctx, export.File{Name: "transactions.csv", Status: export.StatusScheduled, Request: req,
		CreatedBy: "test", CreatedByID: 1, Scope: scope}, func(context.Context, activity.Journal, export.File) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if d, err := w.Process(ctx, f.ID, time.Time{}, nil); err != nil || d != export.Done {
		t.Fatalf("Process: %v, %v", d, err)
	}
	if f, err = files.Get(ctx, f.ID); err != nil {
		t.Fatal(err)
	}
	if f.Status != export.StatusSuccess {
		t.Fatalf("file %d: status %v (%s; %s)", f.ID, f.Status, f.StatusMessage, f.ErrorMessage)
	}
	r, _, err := store.Open(ctx, f.StorageKey)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b, f
}

func quietWorker(store export.WorkerStore, files export.FileStore, o export.WorkerOptions) *export.Worker {
	o.Name = "test"
	if o.Lease == 0 {
		o.Lease = time.Minute
	}
	o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	return export.NewWorker(store, files, nil, time.Now, o)
}

// TestCopyCSVEqualsTheEncoder exports the same filters through the Go
// encoder and through COPY and wants the same bytes, over rows holding
// every awkward value, status, type, amount sign and DST change, under
// every filter an export takes (each selecting some rows but not all, so a
// filter the COPY dropped or misread shows).
func TestCopyCSVEqualsTheEncoder(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, collabs, merchants := copyFixture(t)
	files := postgres.NewFiles(pool)
	var total int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM transactions`).Scan(&total); err != nil {
		t.Fatal(err)
	}
	// Values the list's parser keeps as they are (it trims spaces), each
	// held by some rows but not all.
	pick := func(col string) string {
		var v string
		if err := pool.QueryRow(ctx, `SELECT `+col+` FROM transactions WHERE `+col+` ~ '[,"]' AND `+col+` !~ '^\s|\s$'
			ORDER BY id LIMIT 1`).Scan(&v); err != nil {
			t.Fatalf("%s: %v", col, err)
		}
		return v
	}
	ptid, mcid, nonce, pmv, ip := pick("provider_transaction_id"), pick("merchant_client_id"), pick("nonce"),
		pick("payment_method_value"), pick("payment_ip_address")
	var someCollab int32
	if err := pool.QueryRow(ctx, `SELECT collab_id FROM transactions WHERE transaction_type = 2 AND currency = 'USD'
		ORDER BY id LIMIT 1`).Scan(&someCollab); err != nil {
		t.Fatal(err)
	}
	all := merchant.Scope{All: true}
	one := merchant.Scope{MerchantIDs: []int32{merchants[0]}}
	two := merchant.Scope{MerchantIDs: []int32{merchants[0], merchants[len(merchants)-1]}}
	if merchants[0] == merchants[len(merchants)-1] {
		t.Fatal("the demo collabs all belong to one merchant")
	}
	cases := []struct {
		name   string
		collab int32
		filter export.Filter
		scope  merchant.Scope
		tz     string
		cols   []export.ColumnChoice
		whole  bool // every row
	}{
		{name: "everything in New York", tz: "America/New_York", scope: all, whole: true},
		{name: "everything in Manila", tz: "Asia/Manila", scope: all, whole: true},
		{name: "everything in UTC", tz: "UTC", scope: all, whole: true},
		{name: "one collab", collab: collabs[1], tz: "America/New_York", scope: all},
		{name: "one merchant's scope", tz: "Asia/Manila", scope: one},
		{name: "two merchants' scope", tz: "Asia/Manila", scope: two},
		{name: "scope and collab", collab: collabs[0], tz: "UTC", scope: two},
		{name: "withdrawals", filter: export.Filter{Type: 2}, tz: "America/New_York", scope: all},
		{name: "one status", filter: export.Filter{Statuses: []string{"-2"}}, tz: "UTC", scope: all},
		{name: "statuses", filter: export.Filter{Statuses: []string{"4,-6", "300"}}, tz: "UTC", scope: all},
		{name: "provider tid", filter: export.Filter{ProviderTID: ptid}, tz: "UTC", scope: all},
		{name: "merchant client id", filter: export.Filter{MerchantCID: mcid}, tz: "UTC", scope: all},
		{name: "nonce", filter: export.Filter{Nonce: nonce}, tz: "UTC", scope: all},
		{name: "from", filter: export.Filter{From: "2025-11-02T05:30:00Z"}, tz: "America/New_York", scope: all},
		{name: "from to across the spring change", filter: export.Filter{From: "2025-03-09T06:00:00Z", To: "2025-03-09T09:00:00.5Z"},
			tz: "America/New_York", scope: all},
		// Bounds that are rows' own times, to the microsecond: a bound
		// that lost its fraction would drop the last row.
		{name: "from to a row's microsecond", filter: export.Filter{From: spring.Add(30 * fixtureStep).Format(time.RFC3339Nano),
			To: spring.Add(60 * fixtureStep).Format(time.RFC3339Nano)}, tz: "America/New_York", scope: all},
		{name: "to", filter: export.Filter{To: "2025-06-30"}, tz: "Asia/Manila", scope: one},
		{name: "min amount", filter: export.Filter{MinAmount: "1000"}, tz: "UTC", scope: all},
		{name: "max amount", filter: export.Filter{MaxAmount: "10.05"}, tz: "UTC", scope: all},
		{name: "amount range", filter: export.Filter{MinAmount: "1.00", MaxAmount: "1234.5"}, tz: "UTC", scope: all},
		{name: "currency", filter: export.Filter{Currency: "jpy"}, tz: "UTC", scope: all},
		{name: "formula currency", filter: export.Filter{Currency: "=x"}, tz: "UTC", scope: all},
		{name: "payment method value", filter: export.Filter{PaymentMethodValue: pmv}, tz: "UTC", scope: all},
		{name: "payment method type", filter: export.Filter{PaymentMethodType: 2}, tz: "UTC", scope: all},
		{name: "payment ip", filter: export.Filter{PaymentIP: ip}, tz: "UTC", scope: all},
		{name: "everything at once", collab: someCollab, filter: export.Filter{Type: 2, Statuses: []string{"4", "-2", "3", "-5", "1"},
			From: "2025-01-01", To: "2025-12-31T23:59:59Z", MinAmount: "0.01", Currency: "USD"}, tz: "Asia/Manila", scope: two},
		{name: "a few columns, reordered", tz: "America/New_York", scope: all, whole: true, cols: []export.ColumnChoice{
			{Field: "updatedUtc", Name: "U"}, {Field: "errorMessage", Name: "E"}, {Field: "amount", Name: "A"}, {Field: "nonce", Name: "+N"}}},
		{name: "one column (the encoder's)", tz: "UTC", scope: all, whole: true, cols: []export.ColumnChoice{{Field: "nonce", Name: "N"}}},
	}
	mem := newLocalFiles(t)
	viaCopy := &copying{Files: files}
	copyWorker := quietWorker(viaCopy, mem, export.WorkerOptions{})
	goWorker := quietWorker(goEncoded{files}, mem, export.WorkerOptions{})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cols := c.cols
			if cols == nil {
				cols = allColumns()
			}
			req := export.Request{CollabID: c.collab, Filter: c.filter, Type: export.TypeTransactions, Format: exportfmt.CSV,
				Columns: cols, TimeZone: c.tz}
			before := viaCopy.copies.Load()
			want, wf := runExport(t, files, mem, goWorker, req, c.scope)
			got, gf := runExport(t, files, mem, copyWorker, req, c.scope)
			wantCopies := int32(1)
			if len(cols) == 1 {
				wantCopies = 0 // COPY would quote a lone \. there
			}
			if copied := viaCopy.copies.Load() - before; copied != wantCopies {
				t.Fatalf("%d copies, want %d", copied, wantCopies)
			}
			switch {
			case wf.RecordCount == 0:
				t.Fatalf("the filter selects no rows")
			case c.whole && wf.RecordCount != total:
				t.Fatalf("%d rows, want all %d", wf.RecordCount, total)
			case !c.whole && wf.RecordCount >= total:
				t.Fatalf("the filter selects every row (%d)", total)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("the COPY's file differs from the encoder's at byte %d:\n%s", firstDiff(got, want), diffLines(got, want))
			}
			if gf.RecordCount != wf.RecordCount || gf.SizeBytes != wf.SizeBytes || gf.SHA256 != wf.SHA256 {
				t.Errorf("COPY: %d rows, %d bytes, %s; encoder: %d rows, %d bytes, %s", gf.RecordCount, gf.SizeBytes, gf.SHA256,
					wf.RecordCount, wf.SizeBytes, wf.SHA256)
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// diffLines shows the first record that differs.
func diffLines(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\r\n")), bytes.Split(want, []byte("\r\n"))
	for i := range min(len(g), len(w)) {
		if !bytes.Equal(g[i], w[i]) {
			return fmt.Sprintf("line %d\n got %q\nwant %q", i, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

// TestCopyCSVCancelledAndStopped cancels a file while the COPY writes it
// (slowed by RowsPerSecond), and stops a worker mid-COPY: the first is
// abandoned with nothing committed, the second handed back In Progress.
func TestCopyCSVCancelledAndStopped(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, _, _ := copyFixture(t)
	files := postgres.NewFiles(pool)
	mem := newLocalFiles(t)
	viaCopy := &copying{Files: files}
	w := quietWorker(viaCopy, mem, export.WorkerOptions{Lease: 300 * time.Millisecond, RowsPerSecond: 40})
	req := export.Request{Type: export.TypeTransactions, Format: exportfmt.CSV, Columns: allColumns(), TimeZone: "UTC"}
	insert := func() export.File {
		f, err := files.Insert(ctx, export.File{Name: "transactions.csv", Status: export.StatusScheduled, Request: req,
			CreatedBy: "test", CreatedByID: 1, Scope: merchant.Scope{All: true}}, func(context.Context, activity.Journal, export.File) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	waitWriting := func(id int64) {
		deadline := time.Now().Add(20 * time.Second)
		for {
			f, err := files.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(f.StatusMessage, "Writing: ") && f.StatusMessage != "Writing: 0 rows so far." {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the file did not start: %+v", f)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	t.Run("cancelled", func(t *testing.T) {
		f := insert()
		done := make(chan error, 1)
		go func() {
			d, err := w.Process(ctx, f.ID, time.Time{}, nil)
			if err == nil && d != export.Done {
				err = fmt.Errorf("disposition %v, want Done", d)
			}
			done <- err
		}()
		waitWriting(f.ID)
		if _, ok, err := files.Cancel(ctx, f.ID, time.Now(), func(context.Context, activity.Journal, export.File) error { return nil }); err != nil || !ok {
			t.Fatalf("cancel: %v, %v", ok, err)
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the worker went on after the file was cancelled")
		}
		if got, err := files.Get(ctx, f.ID); err != nil || got.Status != export.StatusCancelled {
			t.Fatalf("file %+v, %v; want Cancelled", got, err)
		}
		if n := mem.count(); n != 0 {
			t.Errorf("%d files committed", n)
		}
	})

	t.Run("stopped", func(t *testing.T) {
		f := insert()
		wctx, stop := context.WithCancel(ctx)
		defer stop()
		done := make(chan error, 1)
		go func() {
			d, err := w.Process(wctx, f.ID, time.Time{}, nil)
			if err == nil && d != export.Later {
				err = fmt.Errorf("disposition %v, want Later", d)
			}
			done <- err
		}()
		waitWriting(f.ID)
		stop()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the worker went on after it was stopped")
		}
		got, err := files.Get(ctx, f.ID)
		if err != nil || got.Status != export.StatusInProgress || got.Worker != "" || !strings.HasPrefix(got.StatusMessage, "Interrupted") {
			t.Fatalf("file %+v, %v; want In Progress, released", got, err)
		}
		if n := mem.count(); n != 0 {
			t.Errorf("%d files committed", n)
		}
		// The next attempt writes it whole.
		w2 := quietWorker(viaCopy, mem, export.WorkerOptions{})
		if d, err := w2.Process(ctx, f.ID, time.Time{}, nil); err != nil || d != export.Done {
			t.Fatalf("Process: %v, %v", d, err)
		}
		if got, err = files.Get(ctx, f.ID); err != nil || got.Status != export.StatusSuccess || got.RecordCount != 260 || got.Attempt != 2 {
			t.Fatalf("file %+v, %v; want Success with 260 rows at attempt 2", got, err)
		}
	})
}
