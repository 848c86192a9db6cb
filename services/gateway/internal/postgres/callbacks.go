package postgres

import (
	"context"
	"fmt"

	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
)

var _ payment.TallyStore = (*Payments)(nil)

// SetCallbackTally implements payment.TallyStore: a compare-and-set on the
// tally's version, so redelivered and out-of-order events change nothing.
func (p *Payments) SetCallbackTally(ctx context.Context, t payment.CallbackTally) (bool, error) {
	at, err := createdAt(ctx, p.pool, t.TransactionID)
	if apperr.KindOf(err) == apperr.KindNotFound {
		return false, nil // no such transaction: nothing to set, as before partitioning
	}
	if err != nil {
		return false, fmt.Errorf("set callback tally of transaction %d: %w", t.TransactionID, err)
	}
	tag, err := p.pool.Exec(ctx, `
		UPDATE transactions SET callbacks_delivered = $2, callbacks_total = $3, callbacks_version = $4
		WHERE id = $1 AND created_at = $5 AND callbacks_version < $4`,
		t.TransactionID, t.Delivered, t.Total, t.Version, at)
	if err != nil {
		return false, fmt.Errorf("set callback tally of transaction %d: %w", t.TransactionID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// MarkConsumed implements collab.Tx.
func (x *tx) MarkConsumed(ctx context.Context, eventID string) (bool, error) {
	tag, err := x.t.Exec(ctx, `INSERT INTO consumed_events (event_id) VALUES ($1) ON CONFLICT (event_id) DO NOTHING`, eventID)
	if err != nil {
		return false, fmt.Errorf("mark event %s consumed: %w", eventID, err)
	}
	return tag.RowsAffected() == 1, nil
}
