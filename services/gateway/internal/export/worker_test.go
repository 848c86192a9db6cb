package export

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/exportfmt"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
)

// fakeStore is a WorkerStore holding one file whose snapshot is pages of
// consecutive transaction ids; snapshotErr, when set, ends the read after
// that many pages.
type fakeStore struct {
	file        File
	pages, size int
	snapshotErr error
	failAfter   int

	mu       sync.Mutex
	read     int // pages handed to fn
	outcome  *Outcome
	released string
}

func (s *fakeStore) Get(context.Context, int64) (File, error) { return s.file, nil }

func (s *fakeStore) Claim(context.Context, int64, string, time.Duration) (File, bool, error) {
	f := s.file
	f.Status, f.Attempt = StatusInProgress, 1
	return f, true, nil
}

func (s *fakeStore) Renew(context.Context, int64, string, time.Duration, string) (bool, error) {
	return true, nil
}

func (s *fakeStore) Finish(_ context.Context, _ int64, _ string, out Outcome) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.outcome = &out
	return true, nil
}

func (s *fakeStore) Release(_ context.Context, _ int64, _, message string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.released = message
	return nil
}

func (s *fakeStore) Snapshot(ctx context.Context, _ payment.ListFilter, _ bool, _ int,
	fn func(context.Context, []payment.Transaction, []LogRecord) error) error {
	for p := range s.pages {
		if s.snapshotErr != nil && p == s.failAfter {
			return s.snapshotErr
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		page := make([]payment.Transaction, s.size)
		for i := range page {
			page[i].ID = int64(p*s.size + i + 1)
		}
		s.mu.Lock()
		s.read++
		s.mu.Unlock()
		if err := fn(ctx, page, nil); err != nil {
			return err
		}
	}
	return nil
}

// recordingEncoder keeps the first cell of every row and fails at row
// failAt (1-based; 0: never).
type recordingEncoder struct {
	ids    []int64
	failAt int
}

func (e *recordingEncoder) Header([]string) error { return nil }
func (e *recordingEncoder) Close() error          { return nil }
func (e *recordingEncoder) Row(cells []exportfmt.Cell) error {
	if len(e.ids)+1 == e.failAt {
		return errors.New("disk full")
	}
	e.ids = append(e.ids, cells[0].Int)
	return nil
}

// memFiles is an in-memory FileStore: committed files by key.
type memFiles struct {
	mu    sync.Mutex
	files map[string][]byte
}

func (m *memFiles) Create(_ context.Context, key string) (FileWriter, error) {
	return &memWriter{m: m, key: key}, nil
}

func (m *memFiles) Open(_ context.Context, key string) (io.ReadCloser, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[key]
	if !ok {
		return nil, 0, ErrFileNotFound
	}
	return io.NopCloser(bytes.NewReader(b)), int64(len(b)), nil
}

func (m *memFiles) DeletePrefix(_ context.Context, prefix string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.files {
		if strings.HasPrefix(k, prefix) {
			delete(m.files, k)
		}
	}
	return nil
}

type memWriter struct {
	m   *memFiles
	key string
	buf bytes.Buffer
}

func (w *memWriter) Write(p []byte) (int, error) { return w.buf.Write(p) }
func (w *memWriter) Abort()                      {}
func (w *memWriter) Commit(context.Context) error {
	w.m.mu.Lock()
	defer w.m.mu.Unlock()
	if w.m.files == nil {
		w.m.files = map[string][]byte{}
	}
	w.m.files[w.key] = bytes.Clone(w.buf.Bytes())
	return nil
}

func newTestWorker(t *testing.T, s *fakeStore, enc *recordingEncoder) *Worker {
	t.Helper()
	files := &memFiles{}
	s.file = File{ID: 1, Name: "transactions.csv", Status: StatusScheduled, Scope: merchant.Scope{All: true},
		Request: Request{Type: TypeTransactions, Format: exportfmt.CSV, Columns: []ColumnChoice{{"id", "ID"}}, TimeZone: "UTC"}}
	return NewWorker(s, files, nil, time.Now, WorkerOptions{Name: "test", Lease: time.Minute,
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		Encoder: func(exportfmt.Format, io.Writer, exportfmt.Options) (exportfmt.Encoder, error) { return enc, nil }})
}

func TestWorkerEncodesEveryPageInOrder(t *testing.T) {
	t.Parallel()
	s := &fakeStore{pages: 50, size: 7}
	enc := &recordingEncoder{}
	if d, err := newTestWorker(t, s, enc).Process(t.Context(), 1, time.Time{}, nil); err != nil || d != Done {
		t.Fatalf("Process: %v, %v", d, err)
	}
	if s.outcome == nil || s.outcome.Status != StatusSuccess || s.outcome.RecordCount != 350 {
		t.Fatalf("outcome %+v, want Success with 350 rows", s.outcome)
	}
	for i, id := range enc.ids {
		if id != int64(i+1) {
			t.Fatalf("row %d is transaction %d, want %d", i+1, id, i+1)
		}
	}
}

func TestWorkerEncoderFailureStopsTheRead(t *testing.T) {
	t.Parallel()
	s := &fakeStore{pages: 1000, size: 10}
	enc := &recordingEncoder{failAt: 15}
	if d, err := newTestWorker(t, s, enc).Process(t.Context(), 1, time.Time{}, nil); err != nil || d != Later {
		t.Fatalf("Process: %v, %v", d, err)
	}
	if !strings.Contains(s.released, "file store") {
		t.Errorf("released with %q, want the file store's message", s.released)
	}
	// The page that failed, at most one waiting and one being read.
	if s.read > 4 {
		t.Errorf("%d pages read after the encoder failed on page 2", s.read)
	}
}

func TestWorkerDatabaseFailure(t *testing.T) {
	t.Parallel()
	s := &fakeStore{pages: 10, size: 10, snapshotErr: errors.New("connection reset"), failAfter: 3}
	enc := &recordingEncoder{}
	if d, err := newTestWorker(t, s, enc).Process(t.Context(), 1, time.Time{}, nil); err != nil || d != Later {
		t.Fatalf("Process: %v, %v", d, err)
	}
	if !strings.Contains(s.released, "database") {
		t.Errorf("released with %q, want the database's message", s.released)
	}
	if s.outcome != nil {
		t.Errorf("outcome %+v after a failed read", s.outcome)
	}
}

// copierStore is a fakeStore that writes a Transactions CSV's records
// itself (or answers err).
type copierStore struct {
	fakeStore
	out    string
	err    error
	calls  int
	fields []string
	zone   string
}

func (s *copierStore) CopyTransactionsCSV(_ context.Context, _ payment.ListFilter, fields []string, zone string, w *exportfmt.CSVCopy) error {
	s.calls++
	s.fields, s.zone = fields, zone
	if s.err != nil {
		return s.err
	}
	w.Columns([]exportfmt.CopyColumn{{Kind: exportfmt.CopyAsIs}, {Kind: exportfmt.CopyText}})
	_, err := io.WriteString(w, s.out)
	return err
}

func TestWorkerCopiesTransactionsCSV(t *testing.T) {
	t.Parallel()
	const want = "\ufeffID,Reference ID\r\n1,\r\n2,\r\n"
	for _, tc := range []struct {
		name      string
		err       error
		cols      []ColumnChoice
		format    exportfmt.Format
		wantCalls int
	}{
		{name: "copied", cols: []ColumnChoice{{"id", "ID"}, {"transactionReferenceId", "Reference ID"}}, wantCalls: 1},
		{name: "the store cannot", err: ErrNoCopy, cols: []ColumnChoice{{"id", "ID"}, {"transactionReferenceId", "Reference ID"}}, wantCalls: 1},
		{name: "one column", cols: []ColumnChoice{{"id", "ID"}}},
		{name: "excel", format: exportfmt.Excel, cols: []ColumnChoice{{"id", "ID"}, {"transactionReferenceId", "Reference ID"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &copierStore{fakeStore: fakeStore{pages: 1, size: 2}, out: "1,\n2,\"\"\n", err: tc.err}
			s.file = File{ID: 1, Name: "transactions.csv", Status: StatusScheduled, Scope: merchant.Scope{All: true},
				Request: Request{Type: TypeTransactions, Format: tc.format, Columns: tc.cols, TimeZone: "Asia/Manila"}}
			files := &memFiles{}
			w := NewWorker(s, files, nil, time.Now, WorkerOptions{Name: "test", Lease: time.Minute,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if d, err := w.Process(t.Context(), 1, time.Time{}, nil); err != nil || d != Done {
				t.Fatalf("Process: %v, %v", d, err)
			}
			if s.calls != tc.wantCalls {
				t.Fatalf("%d copies, want %d", s.calls, tc.wantCalls)
			}
			if s.outcome == nil || s.outcome.Status != StatusSuccess || s.outcome.RecordCount != 2 {
				t.Fatalf("outcome %+v, want Success with 2 rows", s.outcome)
			}
			if tc.wantCalls > 0 && (s.zone != "Asia/Manila" || strings.Join(s.fields, ",") != "id,transactionReferenceId") {
				t.Errorf("copied fields %q in %q", s.fields, s.zone)
			}
			if tc.format != exportfmt.CSV || len(tc.cols) != 2 {
				return
			}
			if got := string(files.files[s.outcome.StorageKey]); got != want {
				t.Errorf("file %q, want %q", got, want)
			}
		})
	}
}
