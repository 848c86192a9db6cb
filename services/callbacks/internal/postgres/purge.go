package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/internal/pgdb"
)

// PurgePayloads empties, in batches of batch, the request bodies stored
// before before whose deliveries are all delivered or cancelled (a pending
// or failed one may still be sent), and cuts the start of the receiver's
// answer out of their attempts' error messages; the attempt rows stay. It
// returns how many bodies it purged, and stops early when stop closes.
func (s *Store) PurgePayloads(ctx context.Context, before, at time.Time, batch int, stop <-chan struct{}) (int64, error) {
	var total int64
	for {
		select {
		case <-stop:
			return total, nil
		default:
		}
		var n int64
		err := pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, `
				UPDATE delivery_bodies b SET body = '', purged_at = $2
				WHERE b.event_id IN (
					SELECT x.event_id FROM delivery_bodies x
					WHERE x.purged_at IS NULL AND x.created_at < $1
						AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = x.event_id AND d.status IN ('pending', 'failed'))
					ORDER BY x.created_at
					LIMIT $3
					FOR UPDATE SKIP LOCKED)
				RETURNING b.event_id`, before, at, batch)
			if err != nil {
				return fmt.Errorf("purge bodies: %w", err)
			}
			events, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return fmt.Errorf("purge bodies: %w", err)
			}
			n = int64(len(events))
			if n == 0 {
				return nil
			}
			if _, err := tx.Exec(ctx, `
				UPDATE attempts a SET error_message = regexp_replace(a.error_message, ' ?Its answer began: .*$', '', 's')
				FROM deliveries d
				WHERE d.event_id = ANY ($1) AND a.transaction_id = d.transaction_id AND a.delivery_id = d.id
					AND a.error_message LIKE '%Its answer began: %'`, events); err != nil {
				return fmt.Errorf("purge answers: %w", err)
			}
			return nil
		})
		if err != nil {
			return total, err
		}
		total += n
		if n < int64(batch) {
			return total, nil
		}
	}
}
