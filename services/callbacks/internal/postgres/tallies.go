package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/internal/bus"
)

// deltas are the changes to transactions' tallies made in one database
// transaction, by transaction id.
type deltas map[int64]*delta

type delta struct {
	merchantID               int32
	delivered, total, failed int32
}

func (d deltas) add(txID int64, merchantID int32, delivered, total, failed int32) {
	x := d[txID]
	if x == nil {
		x = &delta{merchantID: merchantID}
		d[txID] = x
	}
	x.delivered += delivered
	x.total += total
	x.failed += failed
}

// write adds the deltas to the tallies (in transaction id order, so that
// concurrent writers lock tally rows in one order), with a new version for
// each tally that changed, and writes their CallbackDeliveryChanged events.
// Adding deltas under the tally row's lock keeps concurrent writers from
// losing each other's changes.
func (d deltas) write(ctx context.Context, tx pgx.Tx, at time.Time) error {
	var ids []int64
	var merchants, delivered, total, failed []int32
	for _, id := range keysOf(d) {
		x := d[id]
		if x.delivered == 0 && x.total == 0 && x.failed == 0 {
			continue
		}
		ids, merchants = append(ids, id), append(merchants, x.merchantID)
		delivered, total, failed = append(delivered, x.delivered), append(total, x.total), append(failed, x.failed)
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `
		INSERT INTO tallies AS t (transaction_id, merchant_id, delivered, total, failed, version, updated_at)
		SELECT id, m, dd, tt, ff, 1, $6
		FROM unnest($1::bigint[], $2::int[], $3::int[], $4::int[], $5::int[]) AS u(id, m, dd, tt, ff)
		ORDER BY id
		ON CONFLICT (transaction_id) DO UPDATE
		SET delivered = t.delivered + excluded.delivered, total = t.total + excluded.total,
			failed = t.failed + excluded.failed, version = t.version + 1, updated_at = excluded.updated_at
		RETURNING t.transaction_id, t.merchant_id, t.delivered, t.total, t.failed, t.version`,
		ids, merchants, delivered, total, failed, at)
	if err != nil {
		return fmt.Errorf("write tallies: %w", err)
	}
	tallies, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (callback.Tally, error) {
		t := callback.Tally{At: at}
		err := row.Scan(&t.TransactionID, &t.MerchantID, &t.Delivered, &t.Total, &t.Failed, &t.Version)
		return t, err
	})
	if err != nil {
		return fmt.Errorf("write tallies: %w", err)
	}
	evs := make([]proto.Message, len(tallies))
	for i, t := range tallies {
		evs[i] = t.Event()
	}
	if _, err := bus.EnqueueBatch(ctx, tx, evs...); err != nil {
		return fmt.Errorf("write tally events: %w", err)
	}
	return nil
}
