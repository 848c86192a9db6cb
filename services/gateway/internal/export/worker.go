package export

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/exportfmt"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
)

// WorkerStore is what the export worker needs of the store.
type WorkerStore interface {
	// Get returns a file (not found).
	Get(ctx context.Context, id int64) (File, error)
	// Claim takes file id for worker until lease from now: a Scheduled
	// file, or an In Progress one whose lease ended (its worker died); its
	// attempt grows by one. ok is false when it cannot be claimed now, and
	// f is then the file as it is.
	Claim(ctx context.Context, id int64, worker string, lease time.Duration) (f File, ok bool, err error)
	// Renew extends worker's lease on file id and sets its progress
	// message; ok is false when the file is no longer worker's (cancelled,
	// or claimed by another after the lease ended).
	Renew(ctx context.Context, id int64, worker string, lease time.Duration, progress string) (bool, error)
	// Finish records the outcome of worker's claim, with its
	// FileExportFinished event; ok is false (nothing written) when the file
	// is no longer worker's.
	Finish(ctx context.Context, id int64, worker string, out Outcome) (bool, error)
	// Release ends worker's claim now, the file staying In Progress with
	// message as its status message, for the next claim.
	Release(ctx context.Context, id int64, worker, message string) error
	// Snapshot reads the transactions f selects (Scope included) from one
	// database snapshot, newest first, in pages of up to pageSize, and
	// calls fn with each page and, withLogs, the journal entries of the
	// page's transactions (by transaction in page order, then oldest
	// first). Each page and its entries are fn's to keep (the store reuses
	// neither), and fn may hold them while the next page is read: nothing
	// but the pages fn holds and the one being read is in memory. The
	// transactions may carry only the fields the export types' columns read
	// (the postgres store leaves the JSON and the fee's rule unread).
	Snapshot(ctx context.Context, f payment.ListFilter, withLogs bool, pageSize int,
		fn func(ctx context.Context, page []payment.Transaction, logs []LogRecord) error) error
}

// CSVCopier is a WorkerStore that can have the database write the records
// of a Transactions CSV export (the postgres store, with COPY): the common
// and large case, cheaper than reading each row into Go and encoding it.
// The records must come out byte for byte as the CSV encoder writes them
// (exportfmt.CSVCopy rewrites each field of COPY's output to that end).
type CSVCopier interface {
	// CopyTransactionsCSV sets w's columns and writes to it, as COPY …
	// WITH (FORMAT csv) does, one record per transaction f selects (Scope
	// included), from one snapshot, in the list's order: the fields
	// (Transactions columns), times in timeZone. It returns ErrNoCopy,
	// having written nothing, when it cannot write these fields or this
	// zone.
	CopyTransactionsCSV(ctx context.Context, f payment.ListFilter, fields []string, timeZone string, w *exportfmt.CSVCopy) error
}

// ErrNoCopy is CopyTransactionsCSV's answer when the export must be
// encoded in Go instead.
var ErrNoCopy = errors.New("export: the store cannot write these cells itself")

// AttemptSource reads the callback attempts of transactions (the callbacks
// service).
type AttemptSource interface {
	// AttemptsOf returns the attempts of up to 1,000 transactions, by
	// transaction id, then oldest first.
	AttemptsOf(ctx context.Context, transactionIDs []int64) ([]Attempt, error)
}

// Outcome is how a claim ended.
type Outcome struct {
	// Status is Success or Failed.
	Status       Status
	At           time.Time
	ErrorMessage string
	StorageKey   string
	RecordCount  int64
	SizeBytes    int64
	SHA256       string
	Manifest     *Manifest
}

// WorkerOptions configure a Worker; zero values take the defaults.
type WorkerOptions struct {
	// Name names this process in claims (host:pid).
	Name string
	// Lease is how long a claim lasts unless renewed (30 s); it is renewed
	// every third of it.
	Lease time.Duration
	// PageSize is how many transactions are read at a time (1,000, the
	// callbacks service's batch).
	PageSize int
	// RowsPerSecond throttles writing (0: as fast as it goes), to spare a
	// busy database.
	RowsPerSecond int
	// MaxAttempts is how many claims a file gets before a failure that is
	// not its own fault (a database or store error) fails it (3).
	MaxAttempts int32
	// Encoder makes the encoders (exportfmt.New).
	Encoder func(exportfmt.Format, io.Writer, exportfmt.Options) (exportfmt.Encoder, error)
	Logger  *slog.Logger
}

// Worker writes export files: one file per Process call, from a claim on
// its row to its final status.
type Worker struct {
	store    WorkerStore
	files    FileStore
	attempts AttemptSource
	now      func() time.Time
	o        WorkerOptions
	copier   CSVCopier // nil: every file is encoded in Go
}

// NewWorker returns a worker reading store (and attempts for callback
// attempt exports), writing to files.
func NewWorker(store WorkerStore, files FileStore, attempts AttemptSource, now func() time.Time, o WorkerOptions) *Worker {
	if o.Lease <= 0 {
		o.Lease = 30 * time.Second
	}
	if o.PageSize <= 0 {
		o.PageSize = 1000
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 3
	}
	copyCSV := o.Encoder == nil // a caller's own encoder sees every row
	if o.Encoder == nil {
		o.Encoder = exportfmt.New
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	w := &Worker{store: store, files: files, attempts: attempts, now: now, o: o}
	if c, ok := store.(CSVCopier); ok && copyCSV {
		w.copier = c
	}
	return w
}

// Lease is the worker's claim duration.
func (w *Worker) Lease() time.Duration { return w.o.Lease }

// Disposition says what to do with the request that asked for a file.
type Disposition int

// The dispositions.
const (
	// Done: the file is final (or not this worker's business): acknowledge.
	Done Disposition = iota
	// Later: ask again after a while (another worker holds a live claim,
	// or this one was interrupted or failed and the file gets another
	// attempt).
	Later
)

// failure is an error of a file's own making (permanent: another attempt
// fails the same way) or of its surroundings, with the sentence a person
// reads in the file's error message.
type failure struct {
	msg       string
	permanent bool
	err       error
}

func (f *failure) Error() string { return f.msg + ": " + f.err.Error() }
func (f *failure) Unwrap() error { return f.err }

func transient(msg string, err error) error { return &failure{msg: msg, err: err} }
func permanent(msg string, err error) error { return &failure{msg: msg, permanent: true, err: err} }

var errLost = errors.New("the claim was lost")

// Process writes file id, asked for at requestedAt (a request whose time
// is not the file's creation names a file of another database schema and
// is dropped). It claims the file, renews the claim (and calls extend, to
// keep the request's message) every third of the lease while it writes,
// writes the file and its manifest under a directory of this attempt, and
// only then records Success: a worker that dies leaves an uncommitted file
// nobody reads and a claim that lapses, and the next attempt starts from
// scratch. A file cancelled meanwhile is abandoned and its attempt's bytes
// removed.
func (w *Worker) Process(ctx context.Context, id int64, requestedAt time.Time, extend func()) (Disposition, error) {
	f, err := w.store.Get(ctx, id)
	if apperr.KindOf(err) == apperr.KindNotFound {
		return Done, nil
	}
	if err != nil {
		return Later, fmt.Errorf("read file %d: %w", id, err)
	}
	if !requestedAt.IsZero() && !f.CreatedAt.Equal(requestedAt.Truncate(time.Microsecond)) || !f.Status.Processing() {
		return Done, nil
	}
	token := w.o.Name + "/" + randomToken()
	f, ok, err := w.store.Claim(ctx, id, token, w.o.Lease)
	if err != nil {
		return Later, fmt.Errorf("claim file %d: %w", id, err)
	}
	if !ok {
		if f.Status.Processing() {
			return Later, nil // another worker's live claim
		}
		return Done, nil
	}
	log := w.o.Logger.With("file_id", id, "attempt", f.Attempt, "worker", token)
	log.InfoContext(ctx, "export started", "export_type", f.Request.Type, "file_type", f.Request.Format)

	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var rows atomic.Int64
	beat := make(chan struct{})
	go func() {
		defer close(beat)
		tick := time.NewTicker(w.o.Lease / 3)
		defer tick.Stop()
		for {
			select {
			case <-wctx.Done():
				return
			case <-tick.C:
			}
			ok, err := w.store.Renew(wctx, id, token, w.o.Lease, fmt.Sprintf("Writing: %d rows so far.", rows.Load()))
			switch {
			case err != nil && wctx.Err() == nil:
				log.WarnContext(ctx, "renew the claim of an export", "error", err)
			case err == nil && !ok:
				cancel(errLost)
				return
			}
			if extend != nil {
				extend()
			}
		}
	}()
	out, werr := w.write(wctx, f, &rows)
	lost := errors.Is(context.Cause(wctx), errLost)
	cancel(nil)
	<-beat

	switch {
	case lost:
		w.discard(ctx, log, f)
		log.InfoContext(ctx, "export abandoned: the file was cancelled or claimed by another worker")
		return Done, nil
	case werr == nil:
		ok, err := w.store.Finish(ctx, id, token, out)
		if err != nil {
			return Later, fmt.Errorf("record file %d: %w", id, err)
		}
		if !ok {
			w.discard(ctx, log, f)
			return Done, nil
		}
		log.InfoContext(ctx, "export finished", "rows", out.RecordCount, "bytes", out.SizeBytes)
		return Done, nil
	case ctx.Err() != nil:
		// Stopping: hand the file to the next worker at once.
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer rcancel()
		w.discard(rctx, log, f)
		if err := w.store.Release(rctx, id, token, "Interrupted; another worker starts it again."); err != nil {
			log.WarnContext(ctx, "release the claim of an interrupted export", "error", err)
		}
		return Later, nil
	}
	w.discard(ctx, log, f)
	var fl *failure
	if !errors.As(werr, &fl) {
		fl = &failure{msg: "The export stopped on an unexpected internal error. Try again later.", err: werr}
	}
	if !fl.permanent && f.Attempt < w.o.MaxAttempts {
		log.WarnContext(ctx, "export attempt failed; it will be tried again", "error", werr)
		if err := w.store.Release(ctx, id, token, fmt.Sprintf("Attempt %d failed (%s); trying again.", f.Attempt, fl.msg)); err != nil {
			return Later, fmt.Errorf("release file %d: %w", id, err)
		}
		return Later, nil
	}
	msg := fl.msg
	if !fl.permanent {
		msg = fmt.Sprintf("%s (%d attempts failed.)", fl.msg, f.Attempt)
	}
	log.WarnContext(ctx, "export failed", "error", werr)
	if _, err := w.store.Finish(ctx, id, token, Outcome{Status: StatusFailed, At: w.now(), ErrorMessage: msg}); err != nil {
		return Later, fmt.Errorf("record the failure of file %d: %w", id, err)
	}
	return Done, nil
}

// discard removes what an attempt wrote (a committed file whose claim was
// lost); the store already dropped anything uncommitted.
func (w *Worker) discard(ctx context.Context, log *slog.Logger, f File) {
	if err := w.files.DeletePrefix(ctx, attemptPrefix(f.ID, f.Attempt)); err != nil {
		log.WarnContext(ctx, "remove the bytes of an abandoned export attempt", "error", err)
	}
}

func randomToken() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// countingWriter counts and hashes what passes to w.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

const (
	msgDatabase = "The transactions could not be read from the database (it may be busy, or the read timed out). Try again later or narrow the filter."
	msgStore    = "The file could not be saved to the file store (check its permissions and free space)."
	msgEncode   = "The file could not be written in the chosen format."
	msgAttempts = "The callback attempts could not be read from the callbacks service (it did not answer or timed out). Try again later."
	msgRequest  = "The export's request can no longer be read (its filter, columns or time zone are not valid any more). Export again."
)

// write writes f's file and manifest and returns the outcome to record.
func (w *Worker) write(ctx context.Context, f File, rows *atomic.Int64) (Outcome, error) {
	req := f.Request
	ti, ok := TypeOf(req.Type)
	if !ok {
		return Outcome{}, permanent(msgRequest, fmt.Errorf("export type %d", req.Type))
	}
	loc, err := Location(req.TimeZone)
	if err != nil {
		return Outcome{}, permanent(msgRequest, err)
	}
	filter, err := payment.ParseListQuery(req.Filter.ListQuery(req.CollabID))
	if err != nil {
		return Outcome{}, permanent(msgRequest, err)
	}
	filter.Scope = f.Scope
	cols := make([]Column, 0, len(req.Columns))
	names := make([]string, 0, len(req.Columns))
	for _, c := range req.Columns {
		col, ok := ti.Column(c.Field)
		if !ok {
			return Outcome{}, permanent(msgRequest, fmt.Errorf("column %q", c.Field))
		}
		cols, names = append(cols, col), append(names, c.Name)
	}

	prefix := attemptPrefix(f.ID, f.Attempt)
	key := prefix + f.Name
	fw, err := w.files.Create(ctx, key)
	if err != nil {
		return Outcome{}, transient(msgStore, err)
	}
	defer fw.Abort()
	h := sha256.New()
	cw := &countingWriter{w: io.MultiWriter(fw, h)}
	start := time.Now()
	// counted counts n more rows written and waits as RowsPerSecond asks.
	counted := func(ctx context.Context, n int) error {
		total := rows.Add(int64(n))
		if w.o.RowsPerSecond > 0 {
			due := start.Add(time.Duration(total) * time.Second / time.Duration(w.o.RowsPerSecond))
			if d := time.Until(due); d > 10*time.Millisecond {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(d):
				}
			}
		}
		return nil
	}
	if w.copier != nil && req.Format == exportfmt.CSV && ti.Type == TypeTransactions && len(cols) > 1 {
		fields := make([]string, len(cols))
		for i, c := range cols {
			fields[i] = c.Field
		}
		err := w.copyCSV(ctx, filter, fields, names, loc.String(), cw, counted)
		if !errors.Is(err, ErrNoCopy) {
			if err != nil {
				return Outcome{}, err
			}
			return w.commit(ctx, f, fw, cw, h, rows.Load())
		}
		// Nothing was written: the encoder writes the file.
	}
	enc, err := w.o.Encoder(req.Format, cw, exportfmt.Options{Location: loc, Title: ti.Name})
	if err != nil {
		return Outcome{}, permanent(msgEncode, err)
	}
	if err := enc.Header(names); err != nil {
		return Outcome{}, encodeFailure(err)
	}
	cells := make([]exportfmt.Cell, len(cols))
	emit := func(ctx context.Context, r *Row) error {
		for i, c := range cols {
			cells[i] = c.cellOf(r)
		}
		if err := enc.Row(cells); err != nil {
			return encodeFailure(err)
		}
		return counted(ctx, 1)
	}
	// The snapshot is read and the file encoded at the same time: the
	// store reads the next page (Postgres working on it) while this page is
	// encoded, instead of the two taking turns. At most three pages are in
	// memory: the one being encoded, one waiting, one being read.
	pages := make(chan snapshotPage, 1)
	readCtx, stopReading := context.WithCancelCause(ctx)
	defer stopReading(nil)
	encoded := make(chan error, 1)
	go func() {
		var err error
		for p := range pages {
			if err != nil {
				continue // drain: the reader stops at its next page
			}
			if err = w.emitPage(ctx, ti.Type, p, emit); err != nil {
				stopReading(err)
			}
		}
		encoded <- err
	}()
	err = w.store.Snapshot(readCtx, filter, ti.Type == TypeTransactionLogs, w.o.PageSize,
		func(ctx context.Context, page []payment.Transaction, logs []LogRecord) error {
			select {
			case pages <- snapshotPage{page: page, logs: logs}:
				return nil
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		})
	close(pages)
	if eerr := <-encoded; eerr != nil {
		// The encoder's failure stopped the reading; it is the cause.
		err = eerr
	}
	if err != nil {
		var fl *failure
		if errors.As(err, &fl) || ctx.Err() != nil {
			return Outcome{}, err
		}
		return Outcome{}, transient(msgDatabase, err)
	}
	if err := enc.Close(); err != nil {
		return Outcome{}, encodeFailure(err)
	}
	return w.commit(ctx, f, fw, cw, h, rows.Load())
}

// copyCSV has the store write a Transactions CSV export's records (the
// worker's BOM and header first): ErrNoCopy, nothing written, when it
// cannot.
func (w *Worker) copyCSV(ctx context.Context, filter payment.ListFilter, fields, names []string, timeZone string,
	cw *countingWriter, counted func(context.Context, int) error) error {
	cc := exportfmt.NewCSVCopy(cw, names, func(n int) error { return counted(ctx, n) })
	err := w.copier.CopyTransactionsCSV(ctx, filter, fields, timeZone, cc)
	if errors.Is(err, ErrNoCopy) {
		if cc.Started() {
			// Not the interface's promise; the file is not to be trusted.
			return transient(msgDatabase, errors.New("the store gave up on writing the rows after it began"))
		}
		return ErrNoCopy
	}
	if err == nil {
		err = cc.Close()
	}
	switch {
	case err == nil:
		return nil
	case cc.DestinationErr() != nil:
		return transient(msgStore, cc.DestinationErr())
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return transient(msgDatabase, err)
}

// commit commits the file written to fw and writes its manifest.
func (w *Worker) commit(ctx context.Context, f File, fw FileWriter, cw *countingWriter, h hash.Hash, rows int64) (Outcome, error) {
	req := f.Request
	prefix := attemptPrefix(f.ID, f.Attempt)
	key := prefix + f.Name
	if err := fw.Commit(ctx); err != nil {
		return Outcome{}, transient(msgStore, err)
	}
	out := Outcome{Status: StatusSuccess, At: w.now(), StorageKey: key, RecordCount: rows, SizeBytes: cw.n,
		SHA256: hex.EncodeToString(h.Sum(nil))}
	out.Manifest = &Manifest{FileID: f.ID, Name: f.Name, Filter: f.FilterView(), Columns: req.Columns, RowCount: out.RecordCount,
		ByteSize: out.SizeBytes, SHA256: out.SHA256, CreatedUTC: f.CreatedAt.UTC(), FinishedUTC: out.At.UTC(), Attempt: f.Attempt}
	if err := w.writeManifest(ctx, prefix+"manifest.json", out.Manifest); err != nil {
		return Outcome{}, transient(msgStore, err)
	}
	return out, nil
}

// snapshotPage is a page of the snapshot on its way to the encoder.
type snapshotPage struct {
	page []payment.Transaction
	logs []LogRecord
}

// emitPage writes the rows of one page of an export of type t: a row per
// transaction, per journal entry of the page, or per callback attempt of
// the page's transactions (read from the callbacks service now).
func (w *Worker) emitPage(ctx context.Context, t Type, p snapshotPage, emit func(context.Context, *Row) error) error {
	var r Row // one row, reused: emit does not keep it
	switch t {
	case TypeTransactionLogs:
		byID := make(map[int64]int, len(p.page))
		for i, tx := range p.page {
			byID[tx.ID] = i
		}
		for i := range p.logs {
			r.Transaction, r.Log = p.page[byID[p.logs[i].TransactionID]], &p.logs[i]
			if err := emit(ctx, &r); err != nil {
				return err
			}
		}
	case TypeCallbackAttempts:
		ids := make([]int64, len(p.page))
		for i, tx := range p.page {
			ids[i] = tx.ID
		}
		attempts, err := w.attempts.AttemptsOf(ctx, ids)
		if err != nil {
			return transient(msgAttempts, err)
		}
		of := make(map[int64][]int, len(p.page))
		for i, a := range attempts {
			of[a.TransactionID] = append(of[a.TransactionID], i)
		}
		for j := range p.page {
			for _, i := range of[p.page[j].ID] {
				r.Transaction, r.Attempt = p.page[j], &attempts[i]
				if err := emit(ctx, &r); err != nil {
					return err
				}
			}
		}
	default:
		for i := range p.page {
			r.Transaction = p.page[i]
			if err := emit(ctx, &r); err != nil {
				return err
			}
		}
	}
	return nil
}

// encodeFailure words an encoder's error; a PDF past its row cap is the
// caller's to fix.
func encodeFailure(err error) error {
	if errors.Is(err, exportfmt.ErrTooManyRowsForPDF) {
		return permanent(fmt.Sprintf("The export holds more than %s rows, more than a PDF may hold. Export it again as CSV or Excel, or narrow the filter.",
			thousands(exportfmt.MaxPDFRows)), err)
	}
	var fl *failure
	if errors.As(err, &fl) {
		return err
	}
	return transient(msgStore, err)
}

func (w *Worker) writeManifest(ctx context.Context, key string, m *Manifest) error {
	raw, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	mw, err := w.files.Create(ctx, key)
	if err != nil {
		return err
	}
	defer mw.Abort()
	if _, err := mw.Write(append(raw, '\n')); err != nil {
		return err
	}
	return mw.Commit(ctx)
}
