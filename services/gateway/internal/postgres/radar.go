package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/gateway/internal/radar"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Radar is the Postgres implementation of radar.Store (migration 0033):
// the SLAs in radar_slas, and the overdue transactions read through the
// partial index transactions_open_created_idx.
type Radar struct {
	pool *pgxpool.Pool
}

var _ radar.Store = (*Radar)(nil)

// NewRadar returns the radar's store on pool.
func NewRadar(pool *pgxpool.Pool) *Radar { return &Radar{pool: pool} }

// OpenStatuses is the SQL list of the non-final statuses
// (payment.Status.Final is false), the predicate of
// transactions_open_created_idx: a query must repeat it exactly for the
// planner to use the index.
const OpenStatuses = `(0, 1, 2, 3, 300)`

// slaWeight is radar.SLA.Weight in SQL, over radar_slas r.
const slaWeight = `(CASE WHEN r.provider_id <> 0 THEN 4 ELSE 0 END + CASE WHEN r.pay_type_id <> 0 THEN 2 ELSE 0 END
	+ CASE WHEN r.transaction_type <> 0 THEN 1 ELSE 0 END)`

const slaColumns = `r.id, r.provider_id, COALESCE(p.name, ''), r.pay_type_id, COALESCE(pt.name, ''), r.transaction_type,
	r.overdue_after_seconds, r.updated_at, r.updated_by`

const slaFrom = `radar_slas r LEFT JOIN providers p ON p.id = r.provider_id LEFT JOIN pay_types pt ON pt.id = r.pay_type_id`

func scanSLA(row pgx.Row) (radar.SLA, error) {
	var s radar.SLA
	err := row.Scan(&s.ID, &s.ProviderID, &s.ProviderName, &s.PayTypeID, &s.PayTypeName, &s.Type, &s.Seconds,
		&s.UpdatedAt, &s.UpdatedBy)
	s.UpdatedAt = s.UpdatedAt.UTC()
	return s, err
}

// SLAs implements radar.Store.
func (s *Radar) SLAs(ctx context.Context) ([]radar.SLA, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+slaColumns+` FROM `+slaFrom+`
		ORDER BY `+slaWeight+` = 0 DESC, COALESCE(p.name, ''), COALESCE(pt.name, ''), r.transaction_type, r.id
		LIMIT `+strconv.Itoa(radar.MaxSLAs))
	if err != nil {
		return nil, fmt.Errorf("select radar SLAs: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (radar.SLA, error) { return scanSLA(r) })
	if err != nil {
		return nil, fmt.Errorf("select radar SLAs: %w", err)
	}
	return out, nil
}

// name reads one name by id (not found).
func (s *Radar) name(ctx context.Context, query string, id int32, what string) (string, error) {
	var n string
	err := s.pool.QueryRow(ctx, query, id).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", apperr.NotFound("%s %d was not found.", what, id)
	}
	if err != nil {
		return "", fmt.Errorf("select %s %d: %w", strings.ToLower(what), id, err)
	}
	return n, nil
}

// ProviderName implements radar.Store.
func (s *Radar) ProviderName(ctx context.Context, id int32) (string, error) {
	return s.name(ctx, `SELECT name FROM providers WHERE id = $1`, id, "Provider")
}

// PayTypeName implements radar.Store.
func (s *Radar) PayTypeName(ctx context.Context, id int32) (string, error) {
	return s.name(ctx, `SELECT name FROM pay_types WHERE id = $1`, id, "Pay type")
}

// CollabMerchant implements radar.Store.
func (s *Radar) CollabMerchant(ctx context.Context, collabID int32) (int32, error) {
	var m int32
	err := s.pool.QueryRow(ctx, `SELECT merchant_id FROM collabs WHERE id = $1`, collabID).Scan(&m)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, apperr.NotFound("Collab %d was not found.", collabID)
	}
	if err != nil {
		return 0, fmt.Errorf("select collab %d: %w", collabID, err)
	}
	return m, nil
}

// MerchantExists implements radar.Store.
func (s *Radar) MerchantExists(ctx context.Context, id int32) (bool, error) {
	var ok bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM merchants WHERE id = $1)`, id).Scan(&ok); err != nil {
		return false, fmt.Errorf("select merchant %d: %w", id, err)
	}
	return ok, nil
}

// overdueSQL returns the radar's statement for q and its arguments. It
// walks transactions_open_created_idx oldest first (a Merge Append of the
// partitions' indexes), below asOf minus the shortest SLA (nothing younger
// can be overdue) and after the page's key, joins each row to its winning
// SLA (the heaviest matching row of the small radar_slas, through its
// unique key) and stops after q.Limit overdue rows.
func overdueSQL(q radar.Query) (string, []any) {
	args := []any{q.AsOf}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	where := []string{
		`t.status IN ` + OpenStatuses,
		`t.created_at <= $1::timestamptz - make_interval(secs => (SELECT min(overdue_after_seconds) FROM radar_slas))`,
		`t.created_at <= $1::timestamptz - make_interval(secs => s.overdue_after_seconds)`,
	}
	if q.After != nil {
		where = append(where, `(t.created_at, t.id) > (`+arg(q.After.CreatedAt)+`::timestamptz, `+arg(q.After.ID)+`::bigint)`)
	}
	if !q.Scope.All {
		where = append(where, `t.merchant_id = ANY(`+arg(q.Scope.MerchantIDs)+`::integer[])`)
	}
	if q.MerchantID != 0 {
		where = append(where, `t.merchant_id = `+arg(q.MerchantID))
	}
	if q.CollabID != 0 {
		where = append(where, `t.collab_id = `+arg(q.CollabID))
	}
	if q.ProviderID != 0 {
		where = append(where, `t.provider_id = `+arg(q.ProviderID))
	}
	if q.Type != 0 {
		where = append(where, `t.transaction_type = `+arg(q.Type))
	}
	limit := arg(q.Limit)
	return `SELECT t.id, t.reference_id, t.merchant_id, t.merchant_name, t.collab_id, t.provider_id, t.provider_name,
			t.pay_type_id, t.pay_type_name, t.transaction_type, t.status, t.amount::text, t.currency,
			COALESCE(t.provider_transaction_id, ''), t.created_at, s.id, s.overdue_after_seconds
		FROM transactions t
		CROSS JOIN LATERAL (
			SELECT r.id, r.overdue_after_seconds FROM radar_slas r
			WHERE r.provider_id IN (0, t.provider_id) AND r.pay_type_id IN (0, t.pay_type_id)
				AND r.transaction_type IN (0, t.transaction_type)
			ORDER BY ` + slaWeight + ` DESC LIMIT 1) s
		WHERE ` + strings.Join(where, "\n\t\t\tAND ") + `
		ORDER BY t.created_at, t.id
		LIMIT ` + limit, args
}

// Overdue implements radar.Store.
func (s *Radar) Overdue(ctx context.Context, q radar.Query) ([]radar.Row, error) {
	query, args := overdueSQL(q)
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("select overdue transactions: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (radar.Row, error) {
		var r radar.Row
		err := row.Scan(&r.ID, &r.ReferenceID, &r.MerchantID, &r.MerchantName, &r.CollabID, &r.ProviderID,
			&r.ProviderName, &r.PayTypeID, &r.PayTypeName, &r.Type, &r.Status, &r.Amount, &r.Currency, &r.ProviderTID,
			&r.CreatedAt, &r.SLAID, &r.SLASeconds)
		r.CreatedAt = r.CreatedAt.UTC()
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("select overdue transactions: %w", err)
	}
	return out, nil
}

// SaveSLA implements radar.Store. Saves are serialized by a table lock that
// reads do not wait for, so the count of rows and the old value are the
// ones replaced.
func (s *Radar) SaveSLA(ctx context.Context, in radar.SLA, then func(ctx context.Context, j radar.Journal, old *radar.SLA, stored radar.SLA) error) (radar.SLA, error) {
	var stored radar.SLA
	err := pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error {
		if _, err := t.Exec(ctx, `LOCK TABLE radar_slas IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return fmt.Errorf("lock radar SLAs: %w", err)
		}
		var old *radar.SLA
		o, err := scanSLA(t.QueryRow(ctx, `SELECT `+slaColumns+` FROM `+slaFrom+`
			WHERE r.provider_id = $1 AND r.pay_type_id = $2 AND r.transaction_type = $3`, in.ProviderID, in.PayTypeID, in.Type))
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			var n int
			if err := t.QueryRow(ctx, `SELECT count(*) FROM radar_slas`).Scan(&n); err != nil {
				return fmt.Errorf("count radar SLAs: %w", err)
			}
			if n >= radar.MaxSLAs {
				return apperr.Conflict("There are already %d SLAs: delete one first.", radar.MaxSLAs)
			}
		case err != nil:
			return fmt.Errorf("select radar SLA: %w", err)
		default:
			old = &o
		}
		stored = in
		if err := t.QueryRow(ctx, `INSERT INTO radar_slas (provider_id, pay_type_id, transaction_type, overdue_after_seconds,
				updated_at, updated_by) VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (provider_id, pay_type_id, transaction_type) DO UPDATE
				SET overdue_after_seconds = EXCLUDED.overdue_after_seconds, updated_at = EXCLUDED.updated_at,
					updated_by = EXCLUDED.updated_by
			RETURNING id`, in.ProviderID, in.PayTypeID, in.Type, in.Seconds, in.UpdatedAt, in.UpdatedBy).Scan(&stored.ID); err != nil {
			return fmt.Errorf("save radar SLA: %w", err)
		}
		return then(ctx, &tx{t: t}, old, stored)
	})
	return stored, err
}

// DeleteSLA implements radar.Store.
func (s *Radar) DeleteSLA(ctx context.Context, id int64, check func(old radar.SLA) error, then func(ctx context.Context, j radar.Journal, old radar.SLA) error) error {
	return pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error {
		old, err := scanSLA(t.QueryRow(ctx, `SELECT `+slaColumns+` FROM `+slaFrom+` WHERE r.id = $1 FOR UPDATE OF r`, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.NotFound("SLA %d was not found.", id)
		}
		if err != nil {
			return fmt.Errorf("select radar SLA %d: %w", id, err)
		}
		if err := check(old); err != nil {
			return err
		}
		if _, err := t.Exec(ctx, `DELETE FROM radar_slas WHERE id = $1`, id); err != nil {
			return fmt.Errorf("delete radar SLA %d: %w", id, err)
		}
		return then(ctx, &tx{t: t}, old)
	})
}
