package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/export"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Files is the Postgres implementation of export.Store (migration 0017).
// Claims compare and set on the row (status, worker, lease) with the
// database's clock, so the workers of every replica agree on whose a file
// is.
type Files struct {
	pool *pgxpool.Pool
	// reads serves the exported rows and their count (WithReads); pool by
	// default.
	reads *pgxpool.Pool
}

var _ export.Store = (*Files)(nil)

// NewFiles returns the file store on pool.
func NewFiles(pool *pgxpool.Pool) *Files { return &Files{pool: pool, reads: pool} }

// WithReads makes s read the exported rows (Snapshot) and count them
// (CountRows) on reads, a read-only pool on a streaming replica of pool's
// database (app.Parts.ReadPool), so that a long export does not load the
// primary. The files' own rows (the list, the claims, the leases) stay on
// pool: they are compare-and-set. It returns s.
func (s *Files) WithReads(reads *pgxpool.Pool) *Files {
	if reads != nil {
		s.reads = reads
	}
	return s
}

const fileColumns = `id, name, status, request, created_by, created_by_id, scope_all, scope_merchants, created_at,
	updated_at, status_message, error_message, COALESCE(worker, ''), lease_until, attempt, COALESCE(storage_key, ''),
	record_count, file_size_bytes, sha256, manifest`

func scanFile(row pgx.Row) (export.File, error) {
	var f export.File
	var request, manifest []byte
	err := row.Scan(&f.ID, &f.Name, &f.Status, &request, &f.CreatedBy, &f.CreatedByID, &f.Scope.All, &f.Scope.MerchantIDs,
		&f.CreatedAt, &f.UpdatedAt, &f.StatusMessage, &f.ErrorMessage, &f.Worker, &f.LeaseUntil, &f.Attempt, &f.StorageKey,
		&f.RecordCount, &f.SizeBytes, &f.SHA256, &manifest)
	if err != nil {
		return f, err
	}
	f.CreatedAt, f.UpdatedAt = f.CreatedAt.UTC(), f.UpdatedAt.UTC()
	if err := json.Unmarshal(request, &f.Request); err != nil {
		return f, fmt.Errorf("request of file %d: %w", f.ID, err)
	}
	if manifest != nil {
		f.Manifest = &export.Manifest{}
		if err := json.Unmarshal(manifest, f.Manifest); err != nil {
			return f, fmt.Errorf("manifest of file %d: %w", f.ID, err)
		}
	}
	return f, nil
}

const entityFile = "The file"

// CollabOwner implements export.Store.
func (s *Files) CollabOwner(ctx context.Context, id int32) (int32, int32, error) {
	var merchantID, providerID int32
	err := s.pool.QueryRow(ctx, `SELECT merchant_id, provider_id FROM collabs WHERE id = $1`, id).Scan(&merchantID, &providerID)
	if err != nil {
		return 0, 0, pgdb.Translate(fmt.Errorf("find collab %d: %w", id, err), entityCollab)
	}
	return merchantID, providerID, nil
}

// CountRows implements export.Store: a count that stops at limit+1 rows,
// over the list's own conditions.
func (s *Files) CountRows(ctx context.Context, t export.Type, f payment.ListFilter, limit int) (int, error) {
	c := listConditions(microseconds(f))
	inner := `SELECT 1 FROM transactions` + c.where()
	if t == export.TypeTransactionLogs {
		inner = `SELECT 1 FROM transactions JOIN transaction_logs l ON l.transaction_id = transactions.id` + c.where()
	}
	var n int
	err := s.reads.QueryRow(ctx, `SELECT count(*) FROM (`+inner+fmt.Sprintf(` LIMIT %d) AS t`, limit+1), c.args...).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count export rows: %w", err)
	}
	return n, nil
}

// Insert implements export.Store.
func (s *Files) Insert(ctx context.Context, f export.File, then func(context.Context, activity.Journal, export.File) error) (export.File, error) {
	request, err := json.Marshal(f.Request)
	if err != nil {
		return f, fmt.Errorf("encode export request: %w", err)
	}
	merchants := f.Scope.MerchantIDs
	if merchants == nil {
		merchants = []int32{}
	}
	var out export.File
	err = pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error {
		var err error
		out, err = scanFile(t.QueryRow(ctx, `
			INSERT INTO files (name, status, file_type, export_type, collab_id, request, created_by, created_by_id,
				scope_all, scope_merchants, status_message)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			RETURNING `+fileColumns,
			f.Name, f.Status, int16(f.Request.Format), int32(f.Request.Type), f.Request.CollabID, request, f.CreatedBy,
			f.CreatedByID, f.Scope.All, merchants, f.StatusMessage))
		if err != nil {
			return fmt.Errorf("insert file: %w", err)
		}
		j := &tx{t: t}
		if err := j.Publish(ctx, &eventsv1.FileExportRequested{FileId: out.ID, RequestedAt: timestamppb.New(out.CreatedAt)}); err != nil {
			return err
		}
		return then(ctx, j, out)
	})
	return out, err
}

// visible is the condition that viewer v sees a file, with its arguments
// numbered from n+1.
func visible(v export.Viewer, c *conditions) {
	if v.Scope.All {
		return
	}
	ids := v.Scope.MerchantIDs
	if ids == nil {
		ids = []int32{}
	}
	c.add(`NOT scope_all AND (cardinality(scope_merchants) > 0 AND scope_merchants && ?::integer[] AND scope_merchants <@ ?::integer[]
		OR cardinality(scope_merchants) = 0 AND created_by_id = ?)`, ids, ids, v.UserID)
}

// List implements export.Store.
func (s *Files) List(ctx context.Context, v export.Viewer, offset, limit int) ([]export.File, int64, error) {
	var c conditions
	visible(v, &c)
	var total int64
	var files []export.File
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(t pgx.Tx) error {
		if err := t.QueryRow(ctx, `SELECT count(*) FROM files`+c.where(), c.args...).Scan(&total); err != nil {
			return fmt.Errorf("count files: %w", err)
		}
		n := len(c.args)
		rows, err := t.Query(ctx, `SELECT `+fileColumns+` FROM files`+c.where()+
			fmt.Sprintf(` ORDER BY created_at DESC, id DESC LIMIT $%d OFFSET $%d`, n+1, n+2), append(c.args, limit, offset)...)
		if err != nil {
			return fmt.Errorf("select files: %w", err)
		}
		files, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (export.File, error) { return scanFile(row) })
		if err != nil {
			return fmt.Errorf("read files: %w", err)
		}
		return nil
	})
	if files == nil {
		files = []export.File{}
	}
	return files, total, err
}

// Get implements export.Store.
func (s *Files) Get(ctx context.Context, id int64) (export.File, error) {
	f, err := scanFile(s.pool.QueryRow(ctx, `SELECT `+fileColumns+` FROM files WHERE id = $1`, id))
	if err != nil {
		return f, pgdb.Translate(fmt.Errorf("select file %d: %w", id, err), entityFile)
	}
	return f, nil
}

// change runs a compare-and-set update of one file in a transaction,
// writes event (when not nil) and calls then; ok is false when no row
// matched.
func (s *Files) change(ctx context.Context, sql string, args []any, event func(export.File) *eventsv1.FileExportFinished,
	then func(context.Context, activity.Journal, export.File) error) (export.File, bool, error) {
	var out export.File
	ok := false
	err := pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error {
		var err error
		out, err = scanFile(t.QueryRow(ctx, sql+` RETURNING `+fileColumns, args...))
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("update file %v: %w", args[0], err)
		}
		ok = true
		j := &tx{t: t}
		if event != nil {
			if err := j.Publish(ctx, event(out)); err != nil {
				return err
			}
		}
		if then != nil {
			return then(ctx, j, out)
		}
		return nil
	})
	if err != nil {
		return export.File{}, false, err
	}
	return out, ok, nil
}

func finished(f export.File) *eventsv1.FileExportFinished {
	return &eventsv1.FileExportFinished{FileId: f.ID, Status: int32(f.Status), RowCount: f.RecordCount, ByteSize: f.SizeBytes,
		Sha256: f.SHA256, ErrorMessage: f.ErrorMessage, FinishedAt: timestamppb.New(f.UpdatedAt)}
}

// Cancel implements export.Store.
func (s *Files) Cancel(ctx context.Context, id int64, at time.Time, then func(context.Context, activity.Journal, export.File) error) (export.File, bool, error) {
	return s.change(ctx, `UPDATE files SET status = -2, worker = NULL, lease_until = NULL, updated_at = $2, finished_at = $2,
			status_message = 'Cancelled before it was written.'
		WHERE id = $1 AND status IN (0, 1)`, []any{id, at}, finished, then)
}

// MarkDeleted implements export.Store.
func (s *Files) MarkDeleted(ctx context.Context, id int64, seen export.Status, at time.Time, then func(context.Context, activity.Journal, export.File) error) (export.File, bool, error) {
	return s.change(ctx, `UPDATE files SET status = -3, storage_key = NULL, updated_at = $3,
			status_message = 'Deleted; its content is gone.'
		WHERE id = $1 AND status = $2`, []any{id, seen, at}, nil, then)
}

// Expired implements export.Store.
func (s *Files) Expired(ctx context.Context, before time.Time, limit int) ([]export.File, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+fileColumns+` FROM files WHERE status IN (2, -1, -2) AND created_at < $1
		ORDER BY created_at LIMIT $2`, before, limit)
	if err != nil {
		return nil, fmt.Errorf("select expired files: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (export.File, error) { return scanFile(row) })
}

// Claim implements export.Store.
func (s *Files) Claim(ctx context.Context, id int64, worker string, lease time.Duration) (export.File, bool, error) {
	f, err := scanFile(s.pool.QueryRow(ctx, `
		UPDATE files SET status = 1, worker = $2, lease_until = now() + make_interval(secs => $3), attempt = attempt + 1,
			started_at = now(), updated_at = now(), status_message = 'Writing.', error_message = ''
		WHERE id = $1 AND (status = 0 OR status = 1 AND (lease_until IS NULL OR lease_until < now()))
		RETURNING `+fileColumns, id, worker, lease.Seconds()))
	if errors.Is(err, pgx.ErrNoRows) {
		f, err := s.Get(ctx, id)
		return f, false, err
	}
	if err != nil {
		return f, false, fmt.Errorf("claim file %d: %w", id, err)
	}
	return f, true, nil
}

// Renew implements export.Store.
func (s *Files) Renew(ctx context.Context, id int64, worker string, lease time.Duration, progress string) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE files SET lease_until = now() + make_interval(secs => $3), status_message = $4
		WHERE id = $1 AND worker = $2 AND status = 1`, id, worker, lease.Seconds(), progress)
	if err != nil {
		return false, fmt.Errorf("renew the claim of file %d: %w", id, err)
	}
	return tag.RowsAffected() == 1, nil
}

// Finish implements export.Store.
func (s *Files) Finish(ctx context.Context, id int64, worker string, out export.Outcome) (bool, error) {
	var manifest []byte
	if out.Manifest != nil {
		var err error
		if manifest, err = json.Marshal(out.Manifest); err != nil {
			return false, fmt.Errorf("encode the manifest of file %d: %w", id, err)
		}
	}
	msg := "Failed."
	if out.Status == export.StatusSuccess {
		msg = fmt.Sprintf("Written: %d rows.", out.RecordCount)
	}
	_, ok, err := s.change(ctx, `UPDATE files SET status = $3, worker = NULL, lease_until = NULL, finished_at = $4, updated_at = $4,
			error_message = $5, storage_key = NULLIF($6, ''), record_count = $7, file_size_bytes = $8, sha256 = $9,
			manifest = $10, status_message = $11
		WHERE id = $1 AND worker = $2 AND status = 1`,
		[]any{id, worker, out.Status, out.At, out.ErrorMessage, out.StorageKey, out.RecordCount, out.SizeBytes, out.SHA256, manifest, msg},
		finished, nil)
	return ok, err
}

// Release implements export.Store.
func (s *Files) Release(ctx context.Context, id int64, worker, message string) error {
	_, err := s.pool.Exec(ctx, `UPDATE files SET worker = NULL, lease_until = now(), status_message = $3, updated_at = now()
		WHERE id = $1 AND worker = $2 AND status = 1`, id, worker, message)
	if err != nil {
		return fmt.Errorf("release file %d: %w", id, err)
	}
	return nil
}

// exportColumns are the columns of a transaction that an export writes
// (export's column functions read no other field): no JSON, and 27 of the
// row's 41 columns, which is most of what a million-row export's read
// costs (scanTransaction decodes all 41 and unmarshals the provider and
// account data). scanExportRow reads them.
const exportColumns = `id, reference_id, merchant_id, collab_id, merchant_name, provider_name, pay_type_name, nonce,
	merchant_client_id, transaction_type, status, status_message, error_message, amount::text, currency,
	destination_amount::text, destination_currency, COALESCE(provider_transaction_id, ''), payment_ip_address,
	payment_method_value, applied_fee_amount::text, applied_fee_currency, callbacks_delivered, callbacks_total,
	poll_attempts, created_at, updated_at`

// scanExportRow scans exportColumns.
func scanExportRow(row pgx.Row) (payment.Transaction, error) {
	var t payment.Transaction
	var amount, dest string
	var feeAmount *string
	err := row.Scan(&t.ID, &t.ReferenceID, &t.MerchantID, &t.CollabID, &t.MerchantName, &t.ProviderName, &t.PayTypeName,
		&t.Nonce, &t.MerchantClientID, &t.Type, &t.Status, &t.StatusMessage, &t.ErrorMessage, &amount, &t.Currency, &dest,
		&t.DestinationCurrency, &t.ProviderTID, &t.PaymentIP, &t.PaymentMethodValue, &feeAmount, &t.Fee.Currency,
		&t.CallbacksDelivered, &t.CallbacksTotal, &t.PollAttempts, &t.CreatedAt, &t.UpdatedAt)
	if err != nil {
		return t, err
	}
	return t, setAmounts(&t, amount, dest, feeAmount)
}

// Snapshot implements export.Store, inside one read-only repeatable-read
// transaction, so that every page (and its journal entries) comes from
// the same snapshot however long the export takes. The transactions carry
// exportColumns only.
//
// Without logs it is one statement in the list's order, read as it
// streams and cut into pages: no page re-descends the index, and Postgres
// may sort the range once as it would for COPY. With logs each page's
// entries are read between pages, so the pages are keyset pages
// (created_at, id) in the same order.
func (s *Files) Snapshot(ctx context.Context, f payment.ListFilter, withLogs bool, pageSize int,
	fn func(context.Context, []payment.Transaction, []export.LogRecord) error) error {
	f = microseconds(f)
	return pgx.BeginTxFunc(ctx, s.reads, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(t pgx.Tx) error {
		if !withLogs {
			return streamSnapshot(ctx, t, f, pageSize, fn)
		}
		var last *payment.Transaction
		for {
			c := listConditions(f)
			if last != nil {
				c.add("(created_at, id) < (?, ?)", last.CreatedAt, last.ID)
			}
			rows, err := t.Query(ctx, `SELECT `+exportColumns+` FROM transactions`+c.where()+
				fmt.Sprintf(` ORDER BY created_at DESC, id DESC LIMIT %d`, pageSize), c.args...)
			if err != nil {
				return fmt.Errorf("select export page: %w", err)
			}
			page, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (payment.Transaction, error) { return scanExportRow(row) })
			if err != nil {
				return fmt.Errorf("read export page: %w", err)
			}
			if len(page) == 0 {
				return nil
			}
			logs, err := pageLogs(ctx, t, page)
			if err != nil {
				return err
			}
			if err := fn(ctx, page, logs); err != nil {
				return err
			}
			if len(page) < pageSize {
				return nil
			}
			last = &page[len(page)-1]
		}
	})
}

// streamSnapshot reads every transaction f selects with one statement and
// hands them to fn in pages of pageSize (fn keeps each page).
func streamSnapshot(ctx context.Context, t pgx.Tx, f payment.ListFilter, pageSize int,
	fn func(context.Context, []payment.Transaction, []export.LogRecord) error) error {
	c := listConditions(f)
	rows, err := t.Query(ctx, `SELECT `+exportColumns+` FROM transactions`+c.where()+` ORDER BY created_at DESC, id DESC`, c.args...)
	if err != nil {
		return fmt.Errorf("select export rows: %w", err)
	}
	defer rows.Close()
	page := make([]payment.Transaction, 0, pageSize)
	for rows.Next() {
		tx, err := scanExportRow(rows)
		if err != nil {
			return fmt.Errorf("read export row: %w", err)
		}
		if page = append(page, tx); len(page) == pageSize {
			if err := fn(ctx, page, nil); err != nil {
				return err
			}
			page = make([]payment.Transaction, 0, pageSize)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read export rows: %w", err)
	}
	if len(page) > 0 {
		return fn(ctx, page, nil)
	}
	return nil
}

// pageLogs reads the journal entries of a page's transactions, by
// transaction in page order, then oldest first.
func pageLogs(ctx context.Context, q pgdb.Querier, page []payment.Transaction) ([]export.LogRecord, error) {
	ids := make([]int64, len(page))
	for i, t := range page {
		ids[i] = t.ID
	}
	rows, err := q.Query(ctx, `
		SELECT l.id, l.transaction_id, l.at, l.stage, l.level, l.message, l.source_context, l.application, l.auth_data,
			COALESCE(l.transaction_update::text, ''), COALESCE(l.content::text, ''), COALESCE(l.headers::text, ''),
			COALESCE(l.query_params::text, ''), COALESCE(l.webhook_request::text, ''), COALESCE(l.webhook_response::text, ''),
			COALESCE(l.webhook_headers::text, ''), COALESCE(l.exception::text, '')
		FROM unnest($1::bigint[]) WITH ORDINALITY AS p (id, ord)
		JOIN transaction_logs l ON l.transaction_id = p.id
		ORDER BY p.ord, l.id`, ids)
	if err != nil {
		return nil, fmt.Errorf("select export logs: %w", err)
	}
	logs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (export.LogRecord, error) {
		var l export.LogRecord
		err := row.Scan(&l.ID, &l.TransactionID, &l.At, &l.Stage, &l.Level, &l.Message, &l.SourceContext, &l.Application,
			&l.AuthData, &l.TransactionUpdate, &l.Content, &l.Headers, &l.QueryParams, &l.WebhookRequest, &l.WebhookResponse,
			&l.WebhookHeaders, &l.Exception)
		return l, err
	})
	if err != nil {
		return nil, fmt.Errorf("read export logs: %w", err)
	}
	return logs, nil
}
