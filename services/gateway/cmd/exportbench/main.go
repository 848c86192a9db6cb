// Command exportbench measures the export worker of issue 16
// (docs/contracts-files.md, "The worker") on a schema loaded by bench/txgen:
// rows per second of a Transactions export of about a million rows, as CSV
// and as Excel, each beside its bare ceiling measured in the same run, and
// the peak resident memory of the process that writes the file.
//
// Every measurement runs in a child process (this program started again
// with -child), one at a time, so that each one's peak RSS (ru_maxrss) is
// its own:
//
//   - worker-csv, worker-xlsx: the gateway's own path. The child schedules
//     the file with export.Service.Export (validation, the files row, its
//     event) and writes it with export.Worker.Process, the call the
//     gateway's NATS consumer makes for each request: claim, one read-only
//     repeatable-read snapshot read in keyset pages (postgres.Files), the
//     encoder (exportfmt), SHA-256, the local file store (filestore.Local,
//     fsync and rename), manifest, Success. Only the JetStream delivery of
//     the one request message is left out. A Transactions CSV's records
//     are written by Postgres (postgres.Files.CopyTransactionsCSV, one
//     COPY of the cells formatted in SQL) since issue 31.
//   - worker-csv-go: worker-csv with the store's COPY hidden from the
//     worker, so the Go encoder writes every row (the path before issue
//     31); its file must have worker-csv's SHA-256, or the bench fails.
//   - copy-csv: COPY (SELECT the export's columns FROM transactions WHERE
//     the same filter ORDER BY created_at DESC, id DESC) TO STDOUT WITH CSV,
//     through pgx's CopyTo into a file in the same directory, fsynced: the
//     fastest this machine can turn those rows into CSV.
//   - bare-xlsx: the same rows read with one plain pgx query and written
//     with excelize's StreamWriter (the same cell types and number formats,
//     the same zip compression level as the encoder) into a file, fsynced:
//     the fastest the library can write them.
//   - worker-pdf: the worker writing a PDF of the newest -pdf-rows rows
//     (by default exportfmt.MaxPDFRows, the cap), for its peak RSS: a PDF
//     is held in memory until it is written.
//
// The children inherit GOGC=400 unless GOGC is set, as the gateway's
// server package sets it (server.DefaultGCPercent).
package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"cmp"
	"compress/flate"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/xuri/excelize/v2"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/export"
	"github.com/paygate/paygate/services/gateway/internal/exportfmt"
	"github.com/paygate/paygate/services/gateway/internal/filestore"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/internal/pgdb"
	"github.com/paygate/paygate/services/internal/server"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "exportbench:", err)
		os.Exit(1)
	}
}

// config is what the flags say.
type config struct {
	db, readDB, schema, tz, dir, profile, only string
	rows, small, pdfRows                       int64
	runs                                       int
	collab                                     int

	// The child's own flags.
	child, from, to string
}

// readURL is where the bench reads the rows (picking the windows, the bare
// cases): the read replica when there is one.
func (c config) readURL() string {
	if c.readDB != "" {
		return c.readDB
	}
	return c.db
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("exportbench", flag.ContinueOnError)
	fs.StringVar(&c.db, "db", "postgres://postgres@127.0.0.1:5432/paygate?sslmode=disable", "Postgres URL")
	fs.StringVar(&c.readDB, "read-db", "", "Postgres URL of a read replica of -db: the worker reads the exported rows there, as the gateway does with PAYGATE_DATABASE_READ_URL (default: -db)")
	fs.StringVar(&c.schema, "schema", "gateway_bench", "gateway schema loaded by bench/txgen")
	fs.StringVar(&c.tz, "tz", "Asia/Manila", "the export's time zone (settings.timeZone)")
	fs.StringVar(&c.dir, "dir", "", "where files are written (default: a new directory under the system's temporary directory, removed at the end)")
	fs.StringVar(&c.profile, "profile", "", "write a CPU profile and an allocation profile of each measured child into this directory")
	fs.StringVar(&c.only, "only", "", "run only these cases (comma-separated: copy-csv, worker-csv, worker-csv-go, bare-xlsx, worker-xlsx, worker-pdf)")
	fs.Int64Var(&c.pdfRows, "pdf-rows", exportfmt.MaxPDFRows, "how many rows the PDF export holds, the collab's newest (at most exportfmt.MaxPDFRows, the default; 0: no PDF case)")
	fs.Int64Var(&c.rows, "rows", 1_000_000, "about how many rows the headline export holds")
	fs.Int64Var(&c.small, "small", 100_000, "about how many rows the small export holds (peak RSS against size; 0: none)")
	fs.IntVar(&c.runs, "runs", 3, "rounds of the headline cases (the table shows medians; of an even number, the slower middle one)")
	fs.IntVar(&c.collab, "collab", 0, "collab to export (0: the one with the most rows)")
	fs.StringVar(&c.child, "child", "", "internal: run one measurement (a case name) and print its result as JSON")
	fs.StringVar(&c.from, "from", "", "internal: the filter's from (RFC 3339)")
	fs.StringVar(&c.to, "to", "", "internal: the filter's to (RFC 3339)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.runs < 1 || c.rows < 1 {
		return c, errors.New("-runs and -rows must be at least 1")
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	c, err := parseFlags(args)
	if err != nil {
		return err
	}
	if c.child != "" {
		return runChild(ctx, c, stdout)
	}
	return runParent(ctx, c, stdout)
}

// The cases.
const (
	caseCopyCSV   = "copy-csv"
	caseWorkerCSV = "worker-csv"
	// caseWorkerCSVGo is worker-csv through the Go encoder (the store's
	// COPY hidden from the worker): the path before the COPY, and the file
	// worker-csv's must equal byte for byte.
	caseWorkerCSVGo = "worker-csv-go"
	caseBareXLSX    = "bare-xlsx"
	caseWorkerXLSX  = "worker-xlsx"
	caseWorkerPDF   = "worker-pdf"
)

// result is what a child prints.
type result struct {
	Case  string `json:"case"`
	Rows  int64  `json:"rows"`
	Bytes int64  `json:"bytes"`
	// SHA256 is the worker's file's (worker cases).
	SHA256  string  `json:"sha256,omitempty"`
	Seconds float64 `json:"seconds"`
	// SetupKiB is the child's peak RSS before the measured work began (the
	// runtime, the pool, the schema's metadata).
	SetupKiB int64 `json:"setupKiB"`
	// Path is a file the parent checks and removes (worker-xlsx's file,
	// copied out of the store after the measured work).
	Path string `json:"path,omitempty"`
	// PeakKiB is the child's ru_maxrss, filled in by the parent.
	PeakKiB int64 `json:"-"`
}

func (r result) rate() float64 { return float64(r.Rows) / r.Seconds }

// window is a filter: a collab and a date range, and the rows it selects.
type window struct {
	collab   int32
	from, to time.Time
	rows     int64
}

func runParent(ctx context.Context, c config, stdout io.Writer) error {
	loc, err := time.LoadLocation(c.tz)
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, c.readURL())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "SET search_path TO "+pgx.Identifier{c.schema}.Sanitize()); err != nil {
		return err
	}
	var total int64
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM transactions`).Scan(&total); err != nil {
		return fmt.Errorf("count transactions: %w", err)
	}
	collab := int32(c.collab)
	if collab == 0 {
		if err := conn.QueryRow(ctx, `SELECT collab_id FROM transactions GROUP BY collab_id ORDER BY count(*) DESC LIMIT 1`).Scan(&collab); err != nil {
			return fmt.Errorf("pick a collab: %w", err)
		}
	}
	big, err := pickWindow(ctx, conn, collab, c.rows, loc)
	if err != nil {
		return err
	}
	windows := []window{big}
	var pdf window
	if c.pdfRows > 0 {
		if pdf, err = newestRows(ctx, conn, collab, c.pdfRows, loc); err != nil {
			return err
		}
		if pdf.rows > exportfmt.MaxPDFRows {
			return fmt.Errorf("the PDF range holds %d rows, more than a PDF may (%d): lower -pdf-rows", pdf.rows, exportfmt.MaxPDFRows)
		}
	}
	if c.small > 0 {
		small, err := pickWindow(ctx, conn, collab, c.small, loc)
		if err != nil {
			return err
		}
		windows = append(windows, small)
	}
	dir := c.dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "exportbench-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	if c.profile != "" {
		if err := os.MkdirAll(c.profile, 0o750); err != nil {
			return err
		}
	}
	cases := []string{caseCopyCSV, caseWorkerCSV, caseWorkerCSVGo, caseBareXLSX, caseWorkerXLSX, caseWorkerPDF}
	if c.only != "" {
		want := strings.Split(c.only, ",")
		cases = slices.DeleteFunc(cases, func(s string) bool { return !slices.Contains(want, s) })
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}

	host, _ := os.Hostname()
	var load [3]float64
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		_, _ = fmt.Sscan(string(b), &load[0], &load[1], &load[2])
	}
	fmt.Fprintf(stdout, "exportbench %s on %s, load average %.2f %.2f %.2f\n", time.Now().UTC().Format(time.DateTime), host, load[0], load[1], load[2])
	fmt.Fprintf(stdout, "transactions: %d rows in %s; time zone %s; files under %s\n", total, c.schema, c.tz, dir)
	for _, w := range append(windows, pdf) {
		if w.rows > 0 {
			fmt.Fprintf(stdout, "filter: collab %d, from %s to %s: %d rows\n", w.collab, w.from.Format(time.RFC3339), w.to.Format(time.RFC3339), w.rows)
		}
	}

	// One unmeasured read of the headline rows, so that the first measured
	// case does not pay for a cold cache that the others do not.
	warm := time.Now()
	if _, err := copyCSV(ctx, c, big, io.Discard); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	fmt.Fprintf(stdout, "warm-up COPY: %s\n\n", time.Since(warm).Round(time.Millisecond))

	type key struct {
		name string
		rows int64
	}
	got := map[key][]result{}
	checked := map[int64]bool{}
	csvSHA := map[int64]string{} // the first CSV file's of each size
	measure := func(name string, w window, round int) error {
		r, err := runOne(ctx, self, c, name, w, dir, round)
		if err != nil {
			return fmt.Errorf("%s (%d rows): %w", name, w.rows, err)
		}
		if r.Path != "" && checked[w.rows] {
			_ = os.Remove(r.Path)
		} else if r.Path != "" {
			// Once per size: reading a million rows back takes a while.
			checked[w.rows] = true
			ti, _ := export.TypeOf(export.TypeTransactions)
			header := make([]string, len(ti.Columns))
			for i, col := range ti.Columns {
				header[i] = col.Name
			}
			err := checkXLSX(r.Path, r.Rows, header)
			_ = os.Remove(r.Path)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		if r.Rows != w.rows {
			return fmt.Errorf("%s wrote %d rows, the filter selects %d", name, r.Rows, w.rows)
		}
		if name == caseWorkerCSV || name == caseWorkerCSVGo {
			if first, ok := csvSHA[w.rows]; !ok {
				csvSHA[w.rows] = r.SHA256
			} else if r.SHA256 != first {
				return fmt.Errorf("%s wrote a CSV file of SHA-256 %s, another CSV case %s", name, r.SHA256, first)
			}
		}
		fmt.Fprintf(stdout, "  round %d %-11s %9d rows %7.2f s %9.0f rows/s  %6.1f MiB peak RSS (%.1f MiB before), %d bytes\n",
			round, name, r.Rows, r.Seconds, r.rate(), mib(r.PeakKiB), mib(r.SetupKiB), r.Bytes)
		got[key{name, w.rows}] = append(got[key{name, w.rows}], r)
		return nil
	}
	for round := 1; round <= c.runs; round++ {
		for _, name := range cases {
			w := big
			if name == caseWorkerPDF {
				if w = pdf; w.rows == 0 {
					continue
				}
			}
			if err := measure(name, w, round); err != nil {
				return err
			}
		}
	}
	if len(windows) > 1 {
		for _, name := range cases {
			if name == caseWorkerCSV || name == caseWorkerCSVGo || name == caseWorkerXLSX {
				if err := measure(name, windows[1], 1); err != nil {
					return err
				}
			}
		}
	}
	if err := quietOutbox(ctx, c); err != nil {
		return err
	}

	median := func(k key) result {
		rs := slices.Clone(got[k])
		slices.SortFunc(rs, func(a, b result) int { return cmp.Compare(a.Seconds, b.Seconds) })
		m := rs[len(rs)/2]
		for _, r := range rs {
			m.PeakKiB = max(m.PeakKiB, r.PeakKiB)
		}
		return m
	}
	ceilingOf := map[string]string{caseWorkerCSV: caseCopyCSV, caseWorkerCSVGo: caseCopyCSV, caseWorkerXLSX: caseBareXLSX}
	fmt.Fprintf(stdout, "\n| case | rows | s | rows/s | ceiling rows/s | ratio | peak RSS MiB |\n|---|---|---|---|---|---|---|\n")
	for _, w := range append(windows, pdf) {
		for _, name := range cases {
			rs := got[key{name, w.rows}]
			if len(rs) == 0 {
				continue
			}
			m := median(key{name, w.rows})
			ceiling, ratio := "–", "–"
			if cn, ok := ceilingOf[name]; ok && len(got[key{cn, w.rows}]) > 0 {
				cm := median(key{cn, w.rows})
				ceiling = fmt.Sprintf("%.0f", cm.rate())
				ratio = fmt.Sprintf("%.2f", m.rate()/cm.rate())
			}
			fmt.Fprintf(stdout, "| %s | %d | %.2f | %.0f | %s | %s | %.1f |\n", name, m.Rows, m.Seconds, m.rate(), ceiling, ratio, mib(m.PeakKiB))
		}
	}
	fmt.Fprintf(stdout, "\nrows/s and s: median of %d round(s) (the small export: one); peak RSS: the highest of them.\n", c.runs)
	return nil
}

func mib(kib int64) float64 { return float64(kib) / 1024 }

// pickWindow chooses the whole days (in loc) of collab, newest first, whose
// rows come closest to n, and counts them exactly.
func pickWindow(ctx context.Context, conn *pgx.Conn, collab int32, n int64, loc *time.Location) (window, error) {
	rows, err := conn.Query(ctx, `SELECT (created_at AT TIME ZONE $2)::date AS day, count(*) FROM transactions
		WHERE collab_id = $1 GROUP BY day ORDER BY day DESC`, collab, loc.String())
	if err != nil {
		return window{}, fmt.Errorf("rows per day: %w", err)
	}
	type day struct {
		day time.Time
		n   int64
	}
	days, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (day, error) {
		var d day
		err := r.Scan(&d.day, &d.n)
		return d, err
	})
	if err != nil || len(days) == 0 {
		return window{}, fmt.Errorf("rows per day of collab %d: %d days, %v", collab, len(days), err)
	}
	local := func(d time.Time) time.Time { return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc) }
	var sum int64
	best := 0
	for i, d := range days {
		sum += d.n
		best = i
		if sum >= n {
			if sum-n > n-(sum-d.n) && i > 0 {
				best = i - 1
			}
			break
		}
	}
	w := window{collab: collab, from: local(days[best].day).UTC(), to: local(days[0].day).AddDate(0, 0, 1).Add(-time.Millisecond).UTC()}
	err = conn.QueryRow(ctx, `SELECT count(*) FROM transactions WHERE collab_id = $1 AND created_at >= $2 AND created_at <= $3`,
		collab, w.from, w.to).Scan(&w.rows)
	return w, err
}

// newestRows is the window of the collab's n newest rows up to the end of
// its newest day (in loc): a PDF is measured at exactly its row cap, which
// whole days rarely hold.
func newestRows(ctx context.Context, conn *pgx.Conn, collab int32, n int64, loc *time.Location) (window, error) {
	w, err := pickWindow(ctx, conn, collab, 1, loc)
	if err != nil {
		return window{}, err
	}
	if err := conn.QueryRow(ctx, `SELECT created_at FROM transactions WHERE collab_id = $1 AND created_at <= $2
		ORDER BY created_at DESC, id DESC OFFSET $3 LIMIT 1`, collab, w.to, n-1).Scan(&w.from); err != nil {
		return window{}, fmt.Errorf("the %d newest rows of collab %d: %w", n, collab, err)
	}
	w.from = w.from.UTC()
	err = conn.QueryRow(ctx, `SELECT count(*) FROM transactions WHERE collab_id = $1 AND created_at >= $2 AND created_at <= $3`,
		collab, w.from, w.to).Scan(&w.rows)
	return w, err
}

// runOne runs one case in a child process and returns its result with its
// peak RSS.
func runOne(ctx context.Context, self string, c config, name string, w window, dir string, round int) (result, error) {
	args := []string{"-child", name, "-db", c.db, "-read-db", c.readDB, "-schema", c.schema, "-tz", c.tz, "-dir", dir,
		"-collab", strconv.Itoa(int(w.collab)), "-from", w.from.Format(time.RFC3339Nano), "-to", w.to.Format(time.RFC3339Nano)}
	if c.profile != "" {
		args = append(args, "-profile", filepath.Join(c.profile, fmt.Sprintf("%s-%d-%d.pprof", name, w.rows, round)))
	}
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Env = os.Environ()
	if os.Getenv("GOGC") == "" {
		cmd.Env = append(cmd.Env, "GOGC="+strconv.Itoa(server.DefaultGCPercent))
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		return result{}, fmt.Errorf("%w: %s", err, out.String())
	}
	var r result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return result{}, fmt.Errorf("read the child's result %q: %w", out.String(), err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.PeakKiB = ru.Maxrss // KiB on Linux
	}
	return r, nil
}

// quietOutbox marks the events this benchmark's files left in the schema's
// outbox as published: nobody consumes them, and a gateway started on the
// schema later should not send them to a shared NATS.
func quietOutbox(ctx context.Context, c config) error {
	conn, err := pgx.Connect(ctx, c.db)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, `UPDATE `+pgx.Identifier{c.schema, "outbox"}.Sanitize()+` SET published_at = now()
		WHERE published_at IS NULL AND subject IN ('paygate.events.file_export_requested', 'paygate.events.file_export_finished')`)
	if err != nil {
		return fmt.Errorf("mark the benchmark's events published: %w", err)
	}
	return nil
}

func runChild(ctx context.Context, c config, stdout io.Writer) error {
	from, err := time.Parse(time.RFC3339Nano, c.from)
	if err != nil {
		return fmt.Errorf("-from: %w", err)
	}
	to, err := time.Parse(time.RFC3339Nano, c.to)
	if err != nil {
		return fmt.Errorf("-to: %w", err)
	}
	w := window{collab: int32(c.collab), from: from, to: to}
	var work func() (result, error)
	switch c.child {
	case caseWorkerCSV, caseWorkerCSVGo, caseWorkerXLSX, caseWorkerPDF:
		format := exportfmt.CSV
		switch c.child {
		case caseWorkerXLSX:
			format = exportfmt.Excel
		case caseWorkerPDF:
			format = exportfmt.PDF
		}
		work, err = prepareWorker(ctx, c, w, format, c.child == caseWorkerCSVGo)
	case caseCopyCSV:
		work, err = prepareCopy(ctx, c, w)
	case caseBareXLSX:
		work, err = prepareBareXLSX(ctx, c, w)
	default:
		return fmt.Errorf("unknown case %q", c.child)
	}
	if err != nil {
		return err
	}
	setup := vmHWM()
	if c.profile != "" {
		f, err := os.Create(c.profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	r, err := work()
	if err != nil {
		return err
	}
	if c.profile != "" {
		// What allocated, for go tool pprof -sample_index=alloc_space.
		h, err := os.Create(strings.TrimSuffix(c.profile, ".pprof") + ".heap")
		if err != nil {
			return err
		}
		defer h.Close()
		if err := pprof.Lookup("allocs").WriteTo(h, 0); err != nil {
			return err
		}
	}
	r.Case, r.SetupKiB = c.child, setup
	return json.NewEncoder(stdout).Encode(r)
}

// vmHWM is this process's peak RSS so far, in KiB.
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// prepareWorker schedules a Transactions export of w with every column (the
// gateway's own validation and files row) and returns the measured work: the
// worker writing it.
// With goEncoder the worker does not see the store's COPY.
func prepareWorker(ctx context.Context, c config, w window, format exportfmt.Format, goEncoder bool) (func() (result, error), error) {
	pool, err := pgdb.Open(ctx, c.db, c.schema)
	if err != nil {
		return nil, err
	}
	files := postgres.NewFiles(pool)
	closeReads := func() {}
	if c.readDB != "" && c.readDB != c.db {
		reads, err := pgdb.OpenReadOnly(ctx, c.readDB, c.schema)
		if err != nil {
			pool.Close()
			return nil, err
		}
		files.WithReads(reads)
		closeReads = reads.Close
	}
	store, err := filestore.NewLocal(c.dir)
	if err != nil {
		closeReads()
		pool.Close()
		return nil, err
	}
	ti, _ := export.TypeOf(export.TypeTransactions)
	cols := map[string]string{}
	var order []string
	for _, col := range ti.Columns {
		cols[col.Field] = ""
		order = append(order, col.Field)
	}
	actor := activity.Actor{UserID: 1, Username: "exportbench", Scope: merchant.Scope{All: true}}
	f, err := export.NewService(files, store, time.Now).Export(ctx, actor, export.ExportInput{
		CollabID: w.collab, Filter: export.Filter{From: w.from.Format(time.RFC3339Nano), To: w.to.Format(time.RFC3339Nano)},
		Type: int32(export.TypeTransactions), Format: int32(format), Columns: cols, Order: order, TimeZone: c.tz,
	})
	if err != nil {
		closeReads()
		pool.Close()
		return nil, fmt.Errorf("schedule the export: %w", err)
	}
	// Another gateway serving the schema (another bench's) would take the
	// request's event and write the file too. A worker drops a request whose
	// time is not the file's creation (a file of another schema), so the
	// file's creation moves by a microsecond at once: only this process,
	// which asks with the new time, writes it. If another claims it first,
	// the measurement fails rather than time two writers.
	if err := pool.QueryRow(ctx, `UPDATE files SET created_at = created_at + interval '1 microsecond' WHERE id = $1
		RETURNING created_at`, f.ID).Scan(&f.CreatedAt); err != nil {
		closeReads()
		pool.Close()
		return nil, fmt.Errorf("move the file's creation: %w", err)
	}
	var ws export.WorkerStore = files
	if goEncoder {
		ws = struct{ export.WorkerStore }{files}
	}
	worker := export.NewWorker(ws, store, nil, time.Now, export.WorkerOptions{Name: "exportbench",
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	return func() (result, error) {
		defer pool.Close()
		defer closeReads()
		start := time.Now()
		if d, err := worker.Process(ctx, f.ID, f.CreatedAt, nil); err != nil {
			return result{}, err
		} else if d != export.Done {
			return result{}, fmt.Errorf("file %d was claimed by another worker: stop the gateway serving schema %s", f.ID, c.schema)
		}
		took := time.Since(start)
		done, err := files.Get(ctx, f.ID)
		if err != nil {
			return result{}, err
		}
		if done.Status != export.StatusSuccess {
			return result{}, fmt.Errorf("file %d is %s: %s %s", f.ID, done.Status, done.StatusMessage, done.ErrorMessage)
		}
		r := result{Rows: done.RecordCount, Bytes: done.SizeBytes, SHA256: done.SHA256, Seconds: took.Seconds()}
		if format == exportfmt.Excel {
			// The parent reads an Excel file back with excelize (checkXLSX).
			if r.Path, err = copyOut(ctx, store, done.StorageKey, filepath.Join(c.dir, fmt.Sprintf("check-%d.xlsx", f.ID))); err != nil {
				return result{}, err
			}
		}
		if err := store.DeletePrefix(ctx, fmt.Sprintf("exports/%d/", f.ID)); err != nil {
			return result{}, err
		}
		return r, nil
	}, nil
}

// copyOut copies the stored file key to path and returns path.
func copyOut(ctx context.Context, store *filestore.Local, key, path string) (string, error) {
	src, _, err := store.Open(ctx, key)
	if err != nil {
		return "", err
	}
	defer src.Close()
	dst, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(dst, src); err != nil {
		_ = dst.Close()
		return "", err
	}
	return path, dst.Close()
}

// ceilingColumns are the table's columns behind each column of a
// Transactions export, in its default order: what a bare read selects.
var ceilingColumns = map[string]string{
	"id": "id", "transactionReferenceId": "reference_id", "merchantName": "merchant_name", "providerName": "provider_name",
	"transactionType": "transaction_type", "amount": "amount", "currency": "currency", "transactionStatus": "status",
	"callbackDeliveryStatus": "callbacks_delivered || '/' || callbacks_total", "createdUtc": "created_at",
	"updatedUtc": "updated_at", "nonce": "nonce", "merchantClientId": "merchant_client_id",
	"providerTransactionId": "provider_transaction_id", "providerPayType": "pay_type_name",
	"transactionStatusMessage": "status_message", "errorMessage": "error_message", "paymentMethodValue": "payment_method_value",
	"paymentIpAddress": "payment_ip_address", "destinationAmount": "destination_amount",
	"destinationCurrency": "destination_currency", "appliedFeeAmount": "applied_fee_amount",
	"appliedFeeCurrency": "applied_fee_currency", "pollingAttempts": "poll_attempts",
}

// ceilingQuery is the bare SELECT of the export's rows: its columns, the
// same filter, the same order.
func ceilingQuery(w window) (string, error) {
	ti, _ := export.TypeOf(export.TypeTransactions)
	exprs := make([]string, 0, len(ti.Columns))
	for _, col := range ti.Columns {
		e, ok := ceilingColumns[col.Field]
		if !ok {
			return "", fmt.Errorf("no bare column for export column %q", col.Field)
		}
		exprs = append(exprs, e)
	}
	// Literals, not parameters: COPY takes none. Both are formatted here.
	return fmt.Sprintf(`SELECT %s FROM transactions WHERE collab_id = %d AND created_at >= '%s' AND created_at <= '%s'
		ORDER BY created_at DESC, id DESC`, strings.Join(exprs, ", "), w.collab,
		w.from.Format(time.RFC3339Nano), w.to.Format(time.RFC3339Nano)), nil
}

func connect(ctx context.Context, c config) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, c.readURL())
	if err != nil {
		return nil, err
	}
	// The session's zone: COPY writes timestamps in it, as the export does.
	if _, err := conn.Exec(ctx, "SET search_path TO "+pgx.Identifier{c.schema}.Sanitize()+"; SET TimeZone TO '"+
		strings.ReplaceAll(c.tz, "'", "")+"'"); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	return conn, nil
}

// copyCSV copies w's rows as CSV into dst and returns how many.
func copyCSV(ctx context.Context, c config, w window, dst io.Writer) (int64, error) {
	conn, err := connect(ctx, c)
	if err != nil {
		return 0, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	q, err := ceilingQuery(w)
	if err != nil {
		return 0, err
	}
	tag, err := conn.PgConn().CopyTo(ctx, dst, "COPY ("+q+") TO STDOUT WITH (FORMAT csv, HEADER)")
	if err != nil {
		return 0, fmt.Errorf("copy: %w", err)
	}
	return tag.RowsAffected(), nil
}

// fileSink is a buffered file that syncs on close, as the file store's
// commit does.
type fileSink struct {
	f *os.File
	*bufio.Writer
}

func newFileSink(dir, name string) (*fileSink, error) {
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	return &fileSink{f: f, Writer: bufio.NewWriterSize(f, 64<<10)}, nil
}

// close flushes, syncs and removes the file, returning its size.
func (s *fileSink) close() (int64, error) {
	defer os.Remove(s.f.Name())
	return s.closeKeep()
}

// closeKeep flushes, syncs and closes the file, returning its size.
func (s *fileSink) closeKeep() (int64, error) {
	defer s.f.Close()
	if err := s.Flush(); err != nil {
		return 0, err
	}
	if err := s.f.Sync(); err != nil {
		return 0, err
	}
	st, err := s.f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

func prepareCopy(_ context.Context, c config, w window) (func() (result, error), error) {
	return func() (result, error) {
		ctx := context.Background()
		start := time.Now()
		sink, err := newFileSink(c.dir, fmt.Sprintf("copy-%d.csv", os.Getpid()))
		if err != nil {
			return result{}, err
		}
		n, err := copyCSV(ctx, c, w, sink)
		if err != nil {
			return result{}, err
		}
		size, err := sink.close()
		if err != nil {
			return result{}, err
		}
		return result{Rows: n, Bytes: size, Seconds: time.Since(start).Seconds()}, nil
	}, nil
}

// prepareBareXLSX returns the bare excelize ceiling: the export's rows read
// with one query and written with a StreamWriter, each cell of the type the
// encoder gives it (numbers with a 0.00 format, times with a date-time
// format, the status and type by name), zipped at the encoder's level.
func prepareBareXLSX(ctx context.Context, c config, w window) (func() (result, error), error) {
	loc, err := time.LoadLocation(c.tz)
	if err != nil {
		return nil, err
	}
	q, err := ceilingQuery(w)
	if err != nil {
		return nil, err
	}
	return func() (result, error) {
		start := time.Now()
		conn, err := connect(ctx, c)
		if err != nil {
			return result{}, err
		}
		defer conn.Close(context.WithoutCancel(ctx))
		f := excelize.NewFile()
		defer f.Close()
		timeFormat, amountFormat := "yyyy-mm-dd hh:mm:ss", "0.00"
		timeStyle, err := f.NewStyle(&excelize.Style{CustomNumFmt: &timeFormat})
		if err != nil {
			return result{}, err
		}
		amountStyle, err := f.NewStyle(&excelize.Style{CustomNumFmt: &amountFormat})
		if err != nil {
			return result{}, err
		}
		sw, err := f.NewStreamWriter("Sheet1")
		if err != nil {
			return result{}, err
		}
		ti, _ := export.TypeOf(export.TypeTransactions)
		vals := make([]any, len(ti.Columns))
		for i, col := range ti.Columns {
			vals[i] = col.Name
		}
		if err := sw.SetRow("A1", vals); err != nil {
			return result{}, err
		}
		var amountCell, destCell, feeCell, createdCell, updCell excelize.Cell
		amountCell.StyleID, destCell.StyleID, feeCell.StyleID = amountStyle, amountStyle, amountStyle
		createdCell.StyleID, updCell.StyleID = timeStyle, timeStyle
		n, err := readBare(ctx, conn, q, func(r *bareRow) error {
			amountCell.Value, destCell.Value = r.amount, r.dest
			createdCell.Value, updCell.Value = r.created.In(loc), r.updated.In(loc)
			var feeVal, ptidVal any
			if r.fee != nil {
				feeCell.Value = *r.fee
				feeVal = feeCell
			}
			if r.ptid != nil {
				ptidVal = *r.ptid
			}
			vals = append(vals[:0], r.id, r.ref, r.merchantName, r.providerName, r.typeName(), amountCell, r.currency,
				payment.Status(r.status).String(), r.callbacks, createdCell, updCell, r.nonce, r.mcid, ptidVal, r.payType,
				r.statusMsg, r.errMsg, r.pmv, r.ip, destCell, r.destCurrency, feeVal, r.feeCurrency, int64(r.polls))
			return sw.SetRow("A"+strconv.FormatInt(r.n+1, 10), vals)
		})
		if err != nil {
			return result{}, err
		}
		if err := sw.Flush(); err != nil {
			return result{}, err
		}
		sink, err := newFileSink(c.dir, fmt.Sprintf("bare-%d.xlsx", os.Getpid()))
		if err != nil {
			return result{}, err
		}
		f.SetZipWriter(func(io.Writer) excelize.ZipWriter {
			zw := zip.NewWriter(sink)
			zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
				return flate.NewWriter(out, flate.BestSpeed)
			})
			return zw
		})
		if err := f.Write(io.Discard); err != nil {
			return result{}, err
		}
		size, err := sink.close()
		if err != nil {
			return result{}, err
		}
		return result{Rows: n, Bytes: size, Seconds: time.Since(start).Seconds()}, nil
	}, nil
}

// bareRow is one row of the bare read (ceilingQuery's columns).
type bareRow struct {
	n                                          int64 // 1-based
	id                                         int64
	ref, merchantName, providerName, currency  string
	callbacks, nonce, mcid, payType, statusMsg string
	errMsg, pmv, ip, destCurrency, feeCurrency string
	ptid                                       *string
	typ, status                                int16
	amount, dest                               float64
	fee                                        *float64
	created, updated                           time.Time
	polls                                      int32
}

func (r *bareRow) typeName() string {
	if payment.Type(r.typ) == payment.TypeWithdrawal {
		return "Withdrawal"
	}
	return "Deposit"
}

// readBare runs q (ceilingQuery) and calls fn with each row, reusing one
// bareRow; it returns how many rows there were.
func readBare(ctx context.Context, conn *pgx.Conn, q string, fn func(*bareRow) error) (int64, error) {
	rows, err := conn.Query(ctx, q)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var r bareRow
	for rows.Next() {
		if err := rows.Scan(&r.id, &r.ref, &r.merchantName, &r.providerName, &r.typ, &r.amount, &r.currency, &r.status,
			&r.callbacks, &r.created, &r.updated, &r.nonce, &r.mcid, &r.ptid, &r.payType, &r.statusMsg, &r.errMsg, &r.pmv,
			&r.ip, &r.dest, &r.destCurrency, &r.fee, &r.feeCurrency, &r.polls); err != nil {
			return r.n, err
		}
		r.n++
		if err := fn(&r); err != nil {
			return r.n, err
		}
	}
	return r.n, rows.Err()
}
