package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/gateway/internal/collab"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/validation"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Validations is the Postgres implementation of validation.Store (the
// endpoints' CRUD) and payment.ValidationStore (endpoints and results on the
// payment path).
type Validations struct {
	pool *pgxpool.Pool
}

var (
	_ validation.Store        = (*Validations)(nil)
	_ validation.Tx           = (*validationTx)(nil)
	_ payment.ValidationStore = (*Validations)(nil)
)

// NewValidations returns the validation store on pool.
func NewValidations(pool *pgxpool.Pool) *Validations { return &Validations{pool: pool} }

const (
	entityEndpoint = "The validation endpoint"
	entityResult   = "The validation result"
)

const endpointColumns = `e.id, e.collab_id, c.merchant_id, e.url, e.priority, e.awaitable, e.for_cash_in,
	e.for_cash_out, e.created_at, e.updated_at`

const endpointFrom = ` FROM validation_endpoints e JOIN collabs c ON c.id = e.collab_id `

func scanEndpoint(row pgx.Row) (validation.Endpoint, error) {
	var e validation.Endpoint
	err := row.Scan(&e.ID, &e.CollabID, &e.MerchantID, &e.URL, &e.Priority, &e.Awaitable, &e.ForCashIn,
		&e.ForCashOut, &e.CreatedAt, &e.UpdatedAt)
	e.CreatedAt, e.UpdatedAt = e.CreatedAt.UTC(), e.UpdatedAt.UTC()
	return e, err
}

// Endpoints implements validation.Store and payment.ValidationStore.
func (v *Validations) Endpoints(ctx context.Context, collabID int32) ([]validation.Endpoint, error) {
	rows, err := v.pool.Query(ctx, `SELECT `+endpointColumns+endpointFrom+`WHERE e.collab_id = $1 ORDER BY e.priority, e.id`, collabID)
	if err != nil {
		return nil, fmt.Errorf("select validation endpoints of collab %d: %w", collabID, err)
	}
	es, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (validation.Endpoint, error) { return scanEndpoint(row) })
	if err != nil {
		return nil, fmt.Errorf("read validation endpoints of collab %d: %w", collabID, err)
	}
	return es, nil
}

// Endpoint implements validation.Store.
func (v *Validations) Endpoint(ctx context.Context, id int64) (validation.Endpoint, error) {
	e, err := scanEndpoint(v.pool.QueryRow(ctx, `SELECT `+endpointColumns+endpointFrom+`WHERE e.id = $1`, id))
	return e, pgdb.Translate(err, entityEndpoint)
}

// Collab implements validation.Store.
func (v *Validations) Collab(ctx context.Context, id int32) (validation.Collab, error) {
	c, err := oneCollab(ctx, v.pool, id, false)
	return validationCollab(c), err
}

// validationCollab is what validation needs of c.
func validationCollab(c collab.Collab) validation.Collab {
	return validation.Collab{ID: c.ID, MerchantID: c.Merchant.ID, MerchantName: c.Merchant.Name,
		ProviderID: c.Provider.ID, ProviderName: c.Provider.Name}
}

// Tx implements validation.Store.
func (v *Validations) Tx(ctx context.Context, fn func(validation.Tx) error) error {
	return pgdb.InTx(ctx, v.pool, func(t pgx.Tx) error { return fn(&validationTx{tx: &tx{t: t}}) })
}

// validationTx implements validation.Tx; the collab lock, the activity entry
// and the outbox are the collab store's own.
type validationTx struct {
	*tx
}

func (x *validationTx) CollabForUpdate(ctx context.Context, id int32) (validation.Collab, error) {
	c, err := x.tx.CollabForUpdate(ctx, id)
	return validationCollab(c), err
}

func (x *validationTx) EndpointForUpdate(ctx context.Context, id int64) (validation.Endpoint, error) {
	e, err := scanEndpoint(x.t.QueryRow(ctx, `SELECT `+endpointColumns+endpointFrom+`WHERE e.id = $1 FOR UPDATE OF e`, id))
	return e, pgdb.Translate(err, entityEndpoint)
}

func (x *validationTx) CountEndpoints(ctx context.Context, collabID int32) (int, error) {
	var n int
	if err := x.t.QueryRow(ctx, `SELECT count(*) FROM validation_endpoints WHERE collab_id = $1`, collabID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count validation endpoints of collab %d: %w", collabID, err)
	}
	return n, nil
}

func (x *validationTx) InsertEndpoint(ctx context.Context, e validation.Endpoint) (validation.Endpoint, error) {
	var id int64
	err := x.t.QueryRow(ctx, `
		INSERT INTO validation_endpoints (collab_id, url, priority, awaitable, for_cash_in, for_cash_out)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
		e.CollabID, e.URL, e.Priority, e.Awaitable, e.ForCashIn, e.ForCashOut).Scan(&id)
	if err != nil {
		return validation.Endpoint{}, translateWrite(fmt.Errorf("insert validation endpoint of collab %d: %w", e.CollabID, err), entityEndpoint)
	}
	return x.EndpointForUpdate(ctx, id)
}

func (x *validationTx) UpdateEndpoint(ctx context.Context, e validation.Endpoint) (validation.Endpoint, error) {
	tag, err := x.t.Exec(ctx, `
		UPDATE validation_endpoints SET collab_id = $2, url = $3, priority = $4, awaitable = $5, for_cash_in = $6,
			for_cash_out = $7, updated_at = now()
		WHERE id = $1`,
		e.ID, e.CollabID, e.URL, e.Priority, e.Awaitable, e.ForCashIn, e.ForCashOut)
	if err != nil {
		return validation.Endpoint{}, translateWrite(fmt.Errorf("update validation endpoint %d: %w", e.ID, err), entityEndpoint)
	}
	if tag.RowsAffected() == 0 {
		return validation.Endpoint{}, pgdb.Translate(pgx.ErrNoRows, entityEndpoint)
	}
	return x.EndpointForUpdate(ctx, e.ID)
}

func (x *validationTx) DeleteEndpoint(ctx context.Context, id int64) error {
	tag, err := x.t.Exec(ctx, `DELETE FROM validation_endpoints WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("delete validation endpoint %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return pgdb.Translate(pgx.ErrNoRows, entityEndpoint)
	}
	return nil
}

// resultColumns reads a result; an endpoint deleted since reads as 0.
const resultColumns = `r.id, r.transaction_id, COALESCE(e.id, 0), r.url, r.priority, r.awaitable, r.status,
	r.response_code, r.message, r.attempts, r.created_at, r.updated_at`

const resultFrom = ` FROM validation_results r LEFT JOIN validation_endpoints e ON e.id = r.endpoint_id `

func scanResult(row pgx.Row) (validation.Result, error) {
	var r validation.Result
	err := row.Scan(&r.ID, &r.TransactionID, &r.EndpointID, &r.URL, &r.Priority, &r.Awaitable, &r.Status,
		&r.ResponseCode, &r.Message, &r.Attempts, &r.CreatedAt, &r.UpdatedAt)
	r.CreatedAt, r.UpdatedAt = r.CreatedAt.UTC(), r.UpdatedAt.UTC()
	return r, err
}

func oneResult(ctx context.Context, q pgdb.Querier, id int64) (validation.Result, error) {
	r, err := scanResult(q.QueryRow(ctx, `SELECT `+resultColumns+resultFrom+`WHERE r.id = $1`, id))
	return r, pgdb.Translate(err, entityResult)
}

// CreateResults implements payment.ValidationStore.
func (v *Validations) CreateResults(ctx context.Context, transactionID int64, rs []validation.Result, at time.Time, logs []payment.LogEntry) ([]validation.Result, error) {
	out := make([]validation.Result, 0, len(rs))
	err := pgdb.InTx(ctx, v.pool, func(t pgx.Tx) error {
		for _, r := range rs {
			var id int64
			var endpoint any
			if r.EndpointID != 0 {
				endpoint = r.EndpointID
			}
			err := t.QueryRow(ctx, `
				INSERT INTO validation_results (transaction_id, endpoint_id, url, priority, awaitable, status, created_at, updated_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id`,
				transactionID, endpoint, r.URL, r.Priority, r.Awaitable, r.Status, at).Scan(&id)
			if err != nil {
				return pgdb.Translate(fmt.Errorf("insert validation result of transaction %d: %w", transactionID, err), entityTransaction)
			}
			created, err := oneResult(ctx, t, id)
			if err != nil {
				return err
			}
			out = append(out, created)
		}
		return insertLogs(ctx, t, logs)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Results implements payment.ValidationStore: results are inserted in the
// order they are asked.
func (v *Validations) Results(ctx context.Context, transactionID int64) ([]validation.Result, error) {
	rows, err := v.pool.Query(ctx, `SELECT `+resultColumns+resultFrom+`WHERE r.transaction_id = $1 ORDER BY r.id`, transactionID)
	if err != nil {
		return nil, fmt.Errorf("select validation results of transaction %d: %w", transactionID, err)
	}
	rs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (validation.Result, error) { return scanResult(row) })
	if err != nil {
		return nil, fmt.Errorf("read validation results of transaction %d: %w", transactionID, err)
	}
	return rs, nil
}

// Result implements payment.ValidationStore.
func (v *Validations) Result(ctx context.Context, id int64) (validation.Result, error) {
	return oneResult(ctx, v.pool, id)
}

// RecordAnswer implements payment.ValidationStore.
func (v *Validations) RecordAnswer(ctx context.Context, a payment.Answer) (validation.Result, error) {
	var out validation.Result
	err := pgdb.InTx(ctx, v.pool, func(t pgx.Tx) error {
		tag, err := t.Exec(ctx, `
			UPDATE validation_results SET attempts = attempts + 1, updated_at = $6,
				status = CASE WHEN $5 AND status <> 0 THEN status ELSE $2 END,
				response_code = CASE WHEN $5 AND status <> 0 THEN response_code ELSE $3 END,
				message = CASE WHEN $5 AND status <> 0 THEN message ELSE $4 END
			WHERE id = $1`,
			a.ResultID, a.Status, a.ResponseCode, a.Message, a.OnlyPending, a.At)
		if err != nil {
			return fmt.Errorf("record answer to validation result %d: %w", a.ResultID, err)
		}
		if tag.RowsAffected() == 0 {
			return pgdb.Translate(pgx.ErrNoRows, entityResult)
		}
		// An answer is progress of a transaction still being validated.
		at, err := createdAt(ctx, t, a.TransactionID)
		if err != nil {
			return err
		}
		if _, err := t.Exec(ctx, `UPDATE transactions SET updated_at = $2 WHERE id = $1 AND created_at = $4 AND status = $3 AND updated_at < $2`,
			a.TransactionID, a.At, payment.StatusNotConfirmed, at); err != nil {
			return fmt.Errorf("touch transaction %d: %w", a.TransactionID, err)
		}
		if err := insertLogs(ctx, t, a.Logs); err != nil {
			return err
		}
		out, err = oneResult(ctx, t, a.ResultID)
		return err
	})
	return out, err
}

// SetResultStatus implements payment.ValidationStore.
func (v *Validations) SetResultStatus(ctx context.Context, id int64, status validation.Status, at time.Time, logs []payment.LogEntry) (validation.Result, error) {
	var out validation.Result
	err := pgdb.InTx(ctx, v.pool, func(t pgx.Tx) error {
		tag, err := t.Exec(ctx, `UPDATE validation_results SET status = $2, updated_at = $3 WHERE id = $1`, id, status, at)
		if err != nil {
			return fmt.Errorf("set status of validation result %d: %w", id, err)
		}
		if tag.RowsAffected() == 0 {
			return pgdb.Translate(pgx.ErrNoRows, entityResult)
		}
		if err := insertLogs(ctx, t, logs); err != nil {
			return err
		}
		out, err = oneResult(ctx, t, id)
		return err
	})
	return out, err
}
