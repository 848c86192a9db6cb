package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/pgdb"
)

const urlColumns = `id, collab_id, merchant_id, url, is_enabled, max_attempts, add_signature,
	COALESCE(transaction_type, 0), created_at, updated_at, coalesce(disabled_reason, ''), coalesce(disabled_at, 'epoch'),
	coalesce(final_statuses, '{}')`

// urlColumnsOf is urlColumns of the table aliased t.
func urlColumnsOf(t string) string {
	return t + `.id, ` + t + `.collab_id, ` + t + `.merchant_id, ` + t + `.url, ` + t + `.is_enabled, ` + t + `.max_attempts, ` +
		t + `.add_signature, COALESCE(` + t + `.transaction_type, 0), ` + t + `.created_at, ` + t + `.updated_at, coalesce(` +
		t + `.disabled_reason, ''), coalesce(` + t + `.disabled_at, 'epoch'), coalesce(` + t + `.final_statuses, '{}')`
}

// scanURL scans urlColumns, then the columns more names.
func scanURL(row pgx.Row, more ...any) (callback.URL, error) {
	var u callback.URL
	var maxAttempts, typ int16
	var statuses []int32
	err := row.Scan(append([]any{&u.ID, &u.CollabID, &u.MerchantID, &u.URL, &u.Enabled, &maxAttempts, &u.AddSignature,
		&typ, &u.CreatedAt, &u.UpdatedAt, &u.DisabledReason, &u.DisabledAt, &statuses}, more...)...)
	u.FinalStatuses, _, _ = callback.NewStatusSet(statuses)
	u.MaxAttempts, u.TransactionType = int32(maxAttempts), int32(typ)
	if u.DisabledAt.Equal(time.Unix(0, 0)) {
		u.DisabledAt = time.Time{}
	}
	return u, err
}

func collectURLs(rows pgx.Rows) ([]callback.URL, error) {
	urls, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (callback.URL, error) { return scanURL(row) })
	if err != nil {
		return nil, fmt.Errorf("read callback urls: %w", err)
	}
	return urls, nil
}

// nullType stores TypeAll as NULL.
func nullType(t int32) *int16 {
	if t == callback.TypeAll {
		return nil
	}
	v := int16(t)
	return &v
}

// nullID is nil for 0 (the sequence's next id).
func nullID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

// nullStatuses stores every final status as NULL.
func nullStatuses(s callback.StatusSet) []int16 {
	if s == 0 {
		return nil
	}
	var out []int16
	for _, st := range s.List() {
		out = append(out, int16(st))
	}
	return out
}

// CollabURLs implements callback.Store.
func (s *Store) CollabURLs(ctx context.Context, collabID int32) ([]callback.URL, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+urlColumns+` FROM callback_urls WHERE collab_id = $1 ORDER BY id`, collabID)
	if err != nil {
		return nil, fmt.Errorf("select callback urls of collab %d: %w", collabID, err)
	}
	return s.collectWithHeaders(ctx, rows)
}

// MerchantURLs implements callback.Store.
func (s *Store) MerchantURLs(ctx context.Context, merchantID int32) ([]callback.URL, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+urlColumns+` FROM callback_urls WHERE merchant_id = $1 ORDER BY id`, merchantID)
	if err != nil {
		return nil, fmt.Errorf("select callback urls of merchant %d: %w", merchantID, err)
	}
	return s.collectWithHeaders(ctx, rows)
}

// URL implements callback.Store.
func (s *Store) URL(ctx context.Context, id int64) (callback.URL, error) {
	u, err := scanURL(s.pool.QueryRow(ctx, `SELECT `+urlColumns+` FROM callback_urls WHERE id = $1`, id))
	if err != nil {
		return callback.URL{}, pgdb.Translate(err, "The callback URL")
	}
	hs, err := headersOf(ctx, s.pool, []int64{id})
	u.Headers = hs[id]
	return u, err
}

// collectWithHeaders reads rows of callback URLs and their custom headers.
func (s *Store) collectWithHeaders(ctx context.Context, rows pgx.Rows) ([]callback.URL, error) {
	urls, err := collectURLs(rows)
	if err != nil {
		return nil, err
	}
	return urls, withHeaders(ctx, s.pool, urls)
}

// CreateURL implements callback.Store.
func (s *Store) CreateURL(ctx context.Context, u callback.URL, change func(callback.URL) *eventsv1.CallbackUrlChanged) (callback.URL, error) {
	var saved callback.URL
	err := pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		saved, err = scanURL(tx.QueryRow(ctx, `
			INSERT INTO callback_urls (id, collab_id, merchant_id, url, is_enabled, max_attempts, add_signature, transaction_type, created_at, updated_at,
				final_statuses)
			VALUES (coalesce($10, nextval(pg_get_serial_sequence('callback_urls', 'id'))), $1, $2, $3, $4, $5, $6, $7, $8, $8, $9)
			RETURNING `+urlColumns,
			u.CollabID, u.MerchantID, u.URL, u.Enabled, u.MaxAttempts, u.AddSignature, nullType(u.TransactionType), u.CreatedAt,
			nullStatuses(u.FinalStatuses), nullID(u.ID)))
		if err != nil {
			return translateURLWrite(err, fmt.Errorf("insert callback url: %w", err))
		}
		if err := writeHeaders(ctx, tx, saved.ID, u.Headers); err != nil {
			return err
		}
		saved.Headers = u.Headers
		return enqueue(ctx, tx, change(saved))
	})
	return saved, err
}

// UpdateURL implements callback.Store. Pending deliveries of the URL follow
// it: they go to the new address with the new signature setting, and are
// cancelled when it is disabled.
func (s *Store) UpdateURL(ctx context.Context, u callback.URL, change func(before, after callback.URL) *eventsv1.CallbackUrlChanged) (callback.URL, error) {
	var after callback.URL
	err := pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		before, err := scanURL(tx.QueryRow(ctx, `SELECT `+urlColumns+` FROM callback_urls WHERE id = $1 FOR UPDATE`, u.ID))
		if err != nil {
			return pgdb.Translate(err, "The callback URL")
		}
		hs, err := headersOf(ctx, tx, []int64{u.ID})
		if err != nil {
			return err
		}
		before.Headers = hs[u.ID]
		after, err = scanURL(tx.QueryRow(ctx, `
			UPDATE callback_urls SET collab_id = $2, merchant_id = $3, url = $4, is_enabled = $5, max_attempts = $6,
				add_signature = $7, transaction_type = $8, updated_at = $9,
				disabled_reason = CASE WHEN $5 THEN NULL ELSE disabled_reason END,
				disabled_at = CASE WHEN $5 THEN NULL ELSE disabled_at END,
				final_statuses = $10
			WHERE id = $1
			RETURNING `+urlColumns,
			u.ID, u.CollabID, u.MerchantID, u.URL, u.Enabled, u.MaxAttempts, u.AddSignature, nullType(u.TransactionType), u.UpdatedAt,
			nullStatuses(u.FinalStatuses)))
		if err != nil {
			return translateURLWrite(err, fmt.Errorf("update callback url %d: %w", u.ID, err))
		}
		if err := writeHeaders(ctx, tx, u.ID, u.Headers); err != nil {
			return err
		}
		after.Headers = u.Headers
		if !after.Enabled && before.Enabled {
			if err := cancelPendingOfURL(ctx, tx, u.ID, u.UpdatedAt); err != nil {
				return err
			}
		} else if after.Enabled && !before.DisabledAt.IsZero() {
			// Enabled again after it was disabled automatically: its breaker
			// closes, and the deliveries it kept pending are due at once.
			if _, err := tx.Exec(ctx, `DELETE FROM url_breakers WHERE callback_url_id = $1`, u.ID); err != nil {
				return fmt.Errorf("close breaker of callback url %d: %w", u.ID, err)
			}
			if err := dueNow(ctx, tx, []int64{u.ID}, u.UpdatedAt); err != nil {
				return err
			}
		}
		if after.URL != before.URL || after.AddSignature != before.AddSignature {
			// (A URL disabled automatically keeps its pending deliveries.)
			if _, err := tx.Exec(ctx, `
				UPDATE deliveries SET url = $2, sign = $3, updated_at = $4
				WHERE callback_url_id = $1 AND status = 'pending'`, u.ID, after.URL, after.AddSignature, u.UpdatedAt); err != nil {
				return fmt.Errorf("move pending deliveries of callback url %d: %w", u.ID, err)
			}
		}
		return enqueue(ctx, tx, change(before, after))
	})
	return after, err
}

// translateURLWrite turns the one-enabled-row-per-(collab, url) index's
// violation into a conflict that says so; other errors stay wrapped.
func translateURLWrite(err, wrapped error) error {
	if code, constraint, ok := pgdb.ConstraintViolation(err); ok && code == "23505" && constraint == "callback_urls_enabled_url_key" {
		return apperr.New(apperr.KindConflict, err, "This callback URL is already enabled for the collaboration.")
	}
	return wrapped
}

// DeleteURL implements callback.Store.
func (s *Store) DeleteURL(ctx context.Context, id int64, at time.Time, change func(before callback.URL) *eventsv1.CallbackUrlChanged) error {
	return pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		hs, err := headersOf(ctx, tx, []int64{id})
		if err != nil {
			return err
		}
		before, err := scanURL(tx.QueryRow(ctx, `DELETE FROM callback_urls WHERE id = $1 RETURNING `+urlColumns, id))
		if err != nil {
			return pgdb.Translate(err, "The callback URL")
		}
		before.Headers = hs[id]
		if err := cancelPendingOfURL(ctx, tx, id, at); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM url_breakers WHERE callback_url_id = $1`, id); err != nil {
			return fmt.Errorf("delete breaker of callback url %d: %w", id, err)
		}
		return enqueue(ctx, tx, change(before))
	})
}

// cancelPendingOfURL cancels a URL's pending deliveries and writes the
// tallies that changed.
func cancelPendingOfURL(ctx context.Context, tx pgx.Tx, urlID int64, at time.Time) error {
	rows, err := tx.Query(ctx, `
		UPDATE deliveries SET status = 'cancelled', lease_id = NULL, lease_until = NULL, updated_at = $2
		WHERE callback_url_id = $1 AND status = 'pending'
		RETURNING transaction_id, merchant_id`, urlID, at)
	if err != nil {
		return fmt.Errorf("cancel deliveries of callback url %d: %w", urlID, err)
	}
	d := deltas{}
	var txID int64
	var merchantID int32
	if _, err := pgx.ForEachRow(rows, []any{&txID, &merchantID}, func() error {
		d.add(txID, merchantID, 0, -1, 0)
		return nil
	}); err != nil {
		return fmt.Errorf("cancel deliveries of callback url %d: %w", urlID, err)
	}
	return d.write(ctx, tx, at)
}

func enqueue(ctx context.Context, tx pgx.Tx, ev *eventsv1.CallbackUrlChanged) error {
	_, err := bus.Enqueue(ctx, tx, bus.Subject(ev), ev)
	return err
}
