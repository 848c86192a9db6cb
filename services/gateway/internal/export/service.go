package export

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/exportfmt"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Store keeps files and reads what they export.
type Store interface {
	// CollabOwner returns the merchant and provider of collab id (not
	// found).
	CollabOwner(ctx context.Context, id int32) (merchantID, providerID int32, err error)
	// CountRows counts the rows an export of type t over f would write,
	// stopping after limit+1 (TypeCallbackAttempts is not counted here).
	CountRows(ctx context.Context, t Type, f payment.ListFilter, limit int) (int, error)
	// Insert stores f as Scheduled with its FileExportRequested event and
	// calls then with the stored file in the same transaction; nothing is
	// written when either fails.
	Insert(ctx context.Context, f File, then func(ctx context.Context, j activity.Journal, stored File) error) (File, error)
	// List returns files offset to offset+limit-1 of those v sees, newest
	// first, and how many v sees.
	List(ctx context.Context, v Viewer, offset, limit int) ([]File, int64, error)
	// Get returns a file (not found).
	Get(ctx context.Context, id int64) (File, error)
	// Cancel sets a Scheduled or In Progress file Cancelled and calls then
	// in the same transaction; ok is false (and nothing written) when the
	// file was no longer processing.
	Cancel(ctx context.Context, id int64, at time.Time, then func(ctx context.Context, j activity.Journal, f File) error) (File, bool, error)
	// MarkDeleted sets a file whose status is still seen Deleted and calls
	// then in the same transaction (then may be nil); ok is false (and
	// nothing written) when its status changed.
	MarkDeleted(ctx context.Context, id int64, seen Status, at time.Time, then func(ctx context.Context, j activity.Journal, f File) error) (File, bool, error)
	// Expired returns up to limit files that finished (Success, Failed or
	// Cancelled) and were requested before before, oldest first.
	Expired(ctx context.Context, before time.Time, limit int) ([]File, error)

	WorkerStore
}

// Service schedules, lists, serves and deletes export files.
type Service struct {
	store Store
	files FileStore
	now   func() time.Time
}

// NewService returns the service on store, keeping bytes in files, with now
// the clock.
func NewService(store Store, files FileStore, now func() time.Time) *Service {
	return &Service{store: store, files: files, now: now}
}

// ExportInput is an export request as received (spec 02 §3 Export
// request), with the collab of the query.
type ExportInput struct {
	CollabID int32
	Filter   Filter
	Type     int32
	Format   int32
	// Columns maps field to header name; Order lists the fields in the
	// order to write them (absent: the type's default order).
	Columns  map[string]string
	Order    []string
	TimeZone string
}

// MaxColumnName bounds a column's header.
const MaxColumnName = 100

// Export validates in and schedules its file for actor: the file is
// Scheduled, its FileExportRequested event and an activity entry are
// written with it. Bad input is invalid (naming the field by its JSON name;
// the filter is refused exactly as the transaction list refuses it), a
// collab outside actor's scope is not found; either way nothing is written.
func (s *Service) Export(ctx context.Context, actor activity.Actor, in ExportInput) (File, error) {
	req, filter, err := validate(in)
	if err != nil {
		return File{}, err
	}
	filter.Scope = actor.Scope
	var merchantID, providerID int32
	if req.CollabID != 0 {
		merchantID, providerID, err = s.store.CollabOwner(ctx, req.CollabID)
		if apperr.KindOf(err) == apperr.KindNotFound || err == nil && !actor.Scope.Includes(merchantID) {
			return File{}, apperr.NotFound("Collab %d was not found.", req.CollabID)
		}
		if err != nil {
			return File{}, fmt.Errorf("collab %d of an export: %w", req.CollabID, err)
		}
	}
	if req.Format == exportfmt.PDF && req.Type != TypeCallbackAttempts {
		n, err := s.store.CountRows(ctx, req.Type, filter, exportfmt.MaxPDFRows)
		if err != nil {
			return File{}, fmt.Errorf("count the rows of a PDF export: %w", err)
		}
		if n > exportfmt.MaxPDFRows {
			return File{}, apperr.Invalid("The filter selects more than %s rows, more than a PDF may hold: narrow the filter (a shorter date range, one collab) or choose settings.fileType 0 (CSV) or 1 (Excel).",
				thousands(exportfmt.MaxPDFRows))
		}
	}
	ti, _ := TypeOf(req.Type)
	now := s.now()
	f := File{
		Name:    fmt.Sprintf("%s-%s.%s", ti.Slug, now.UTC().Format("20060102-150405"), req.Format.Extension()),
		Status:  StatusScheduled,
		Request: req, CreatedBy: actor.Username, CreatedByID: actor.UserID, Scope: actor.Scope,
		StatusMessage: "Waiting for an export worker.",
	}
	f.Scope.MerchantIDs = slices.Sorted(slices.Values(f.Scope.MerchantIDs))
	return s.store.Insert(ctx, f, func(ctx context.Context, j activity.Journal, stored File) error {
		return activity.Record(ctx, j, actor, activity.Entry{
			MerchantID: merchantID, ProviderID: providerID, CollabID: req.CollabID, ActionType: activity.ActionOther,
			Message: fmt.Sprintf("Export of %s requested: file %d, %s, %d columns.", strings.ToLower(ti.Name), stored.ID,
				formatName(req.Format), len(req.Columns)),
			NewValue: activity.Value(map[string]any{"fileId": stored.ID, "name": stored.Name, "filter": stored.FilterView()}),
		}, now)
	})
}

func formatName(f exportfmt.Format) string {
	switch f {
	case exportfmt.Excel:
		return "Excel"
	case exportfmt.PDF:
		return "PDF"
	}
	return "CSV"
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// validate checks in: every problem of the settings, then the filter's as
// the list words them, in one invalid error.
func validate(in ExportInput) (Request, payment.ListFilter, error) {
	var bad []string
	req := Request{CollabID: in.CollabID, Filter: in.Filter, Type: Type(in.Type), Format: exportfmt.Format(in.Format)}
	ti, ok := TypeOf(req.Type)
	if !ok {
		bad = append(bad, "settings.exportType must be 1 (Transactions), 3 (Transaction logs) or 4 (Callback attempts).")
	}
	if !req.Format.Known() {
		bad = append(bad, "settings.fileType must be 0 (CSV), 1 (Excel) or 2 (PDF).")
	}
	if len(in.Columns) == 0 {
		bad = append(bad, "settings.columns must name at least one column.")
	} else if ok {
		cols, problems := chooseColumns(ti, in.Columns, in.Order)
		req.Columns, bad = cols, append(bad, problems...)
	}
	req.TimeZone = strings.TrimSpace(in.TimeZone)
	if req.TimeZone == "" {
		req.TimeZone = "UTC"
	}
	if _, err := Location(req.TimeZone); err != nil {
		bad = append(bad, fmt.Sprintf("settings.timeZone: %q is not a time zone such as Asia/Manila or UTC.", in.TimeZone))
	}
	filter, err := payment.ParseListQuery(req.Filter.ListQuery(req.CollabID))
	if err != nil {
		bad = append(bad, apperr.As(err).PublicMessage())
	}
	if len(bad) > 0 {
		return req, filter, apperr.Invalid("%s", strings.Join(bad, " "))
	}
	return req, filter, nil
}

// chooseColumns orders the chosen columns: those of order first, then the
// rest in the type's default order.
func chooseColumns(ti TypeInfo, chosen map[string]string, order []string) ([]ColumnChoice, []string) {
	var bad []string
	for field, name := range chosen {
		if _, ok := ti.Column(field); !ok {
			bad = append(bad, fmt.Sprintf("settings.columns: %q is not a column of %s.", field, ti.Name))
		}
		if utf8.RuneCountInString(name) > MaxColumnName {
			bad = append(bad, fmt.Sprintf("settings.columns: the name of %q must be at most %d characters.", field, MaxColumnName))
		}
	}
	seen := map[string]bool{}
	var fields []string
	for _, field := range order {
		switch {
		case seen[field]:
			bad = append(bad, fmt.Sprintf("settings.columnOrder names %q twice.", field))
		case !hasKey(chosen, field):
			bad = append(bad, fmt.Sprintf("settings.columnOrder: %q is not one of settings.columns.", field))
		default:
			seen[field] = true
			fields = append(fields, field)
		}
	}
	for _, c := range ti.Columns {
		if hasKey(chosen, c.Field) && !seen[c.Field] {
			fields = append(fields, c.Field)
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return nil, slices.Compact(bad)
	}
	out := make([]ColumnChoice, 0, len(fields))
	for _, field := range fields {
		c, _ := ti.Column(field)
		name := strings.TrimSpace(chosen[field])
		if name == "" {
			name = c.Name
		}
		out = append(out, ColumnChoice{Field: field, Name: name})
	}
	return out, nil
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }

// Location loads an IANA time zone; "Local" is refused (the server's own
// zone means nothing to the caller).
func Location(name string) (*time.Location, error) {
	if name == "Local" {
		return nil, errors.New("the server's local zone is not a time zone name")
	}
	return time.LoadLocation(name)
}

// List returns one page (1-based) of the files v sees, newest first.
func (s *Service) List(ctx context.Context, v Viewer, page, take int) (Page, error) {
	files, total, err := s.store.List(ctx, v, (page-1)*take, take)
	if err != nil {
		return Page{}, fmt.Errorf("list files: %w", err)
	}
	return Page{Files: files, TotalCount: total, Page: page, Take: take}, nil
}

func fileNotFound(id int64) error { return apperr.NotFound("File %d was not found.", id) }

// Get returns a file v sees (not found otherwise).
func (s *Service) Get(ctx context.Context, v Viewer, id int64) (File, error) {
	f, err := s.store.Get(ctx, id)
	if apperr.KindOf(err) == apperr.KindNotFound || err == nil && !v.Sees(f) {
		return File{}, fileNotFound(id)
	}
	if err != nil {
		return File{}, fmt.Errorf("get file %d: %w", id, err)
	}
	return f, nil
}

// Open returns a Success file v sees with its bytes (close r). A file not
// written (yet) is a conflict whose message says it is not ready.
func (s *Service) Open(ctx context.Context, v Viewer, id int64) (f File, r io.ReadCloser, size int64, err error) {
	f, err = s.Get(ctx, v, id)
	if err != nil {
		return f, nil, 0, err
	}
	switch f.Status {
	case StatusSuccess:
	case StatusScheduled, StatusInProgress:
		return f, nil, 0, apperr.Conflict("File %d is not ready: it is %s. Try again when it shows Success.", id, f.Status)
	case StatusFailed:
		return f, nil, 0, apperr.Conflict("File %d is not ready and never will be: the export failed (%s) Export again.", id, f.ErrorMessage)
	default:
		return f, nil, 0, apperr.Conflict("File %d is not ready: it is %s and holds nothing. Export again.", id, f.Status)
	}
	r, size, err = s.files.Open(ctx, f.StorageKey)
	if errors.Is(err, ErrFileNotFound) {
		return f, nil, 0, apperr.Conflict("File %d is not ready: its content is gone. Export again.", id)
	}
	if err != nil {
		return f, nil, 0, fmt.Errorf("open file %d: %w", id, err)
	}
	return f, r, size, nil
}

// Prefix is the file store "directory" of every attempt of file id.
func Prefix(id int64) string { return fmt.Sprintf("exports/%d/", id) }

// attemptPrefix is the directory of one attempt's file and manifest: a
// worker that lost its claim writes only there.
func attemptPrefix(id int64, attempt int32) string { return fmt.Sprintf("%s%d/", Prefix(id), attempt) }

// Delete deletes a file v sees, as actor: a Scheduled or In Progress file
// is Cancelled (never written: a worker writing it stops at its next lease
// renewal and discards what it wrote); a finished one loses its bytes and
// becomes Deleted. Deleting a Deleted file again changes nothing.
func (s *Service) Delete(ctx context.Context, actor activity.Actor, id int64) (File, error) {
	v := Viewer{UserID: actor.UserID, Scope: actor.Scope}
	record := func(msg string) func(context.Context, activity.Journal, File) error {
		return func(ctx context.Context, j activity.Journal, f File) error {
			return activity.Record(ctx, j, actor, activity.Entry{
				CollabID: f.Request.CollabID, ActionType: activity.ActionOther, Message: fmt.Sprintf(msg, f.ID),
				OldValue: activity.Value(map[string]any{"fileId": f.ID, "name": f.Name}),
			}, s.now())
		}
	}
	for range 3 {
		f, err := s.Get(ctx, v, id)
		if err != nil {
			return File{}, err
		}
		switch f.Status {
		case StatusDeleted:
			return f, nil
		case StatusScheduled, StatusInProgress:
			out, ok, err := s.store.Cancel(ctx, id, s.now(), record("Export file %d cancelled before it was written."))
			if err != nil {
				return File{}, fmt.Errorf("cancel file %d: %w", id, err)
			}
			if ok {
				return out, nil
			}
		default:
			if err := s.files.DeletePrefix(ctx, Prefix(id)); err != nil {
				return File{}, fmt.Errorf("delete the bytes of file %d: %w", id, err)
			}
			out, ok, err := s.store.MarkDeleted(ctx, id, f.Status, s.now(), record("Export file %d deleted."))
			if err != nil {
				return File{}, fmt.Errorf("mark file %d deleted: %w", id, err)
			}
			if ok {
				return out, nil
			}
		}
		// The status changed under us (a worker finished): look again.
	}
	return File{}, apperr.Conflict("File %d changed while it was being deleted. Reload and try again.", id)
}

// DeleteExpired deletes the bytes of files requested before before and
// marks them Deleted, up to limit files a call; it returns how many.
func (s *Service) DeleteExpired(ctx context.Context, before time.Time, limit int) (int, error) {
	files, err := s.store.Expired(ctx, before, limit)
	if err != nil {
		return 0, fmt.Errorf("find expired files: %w", err)
	}
	n := 0
	for _, f := range files {
		if err := s.files.DeletePrefix(ctx, Prefix(f.ID)); err != nil {
			return n, fmt.Errorf("delete the bytes of file %d: %w", f.ID, err)
		}
		_, ok, err := s.store.MarkDeleted(ctx, f.ID, f.Status, s.now(), nil)
		if err != nil {
			return n, fmt.Errorf("mark file %d deleted: %w", f.ID, err)
		}
		if ok {
			n++
		}
	}
	return n, nil
}
