package postgres

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/gateway/internal/collab"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/keyring"
)

// Payments is the Postgres implementation of payment.Store.
type Payments struct {
	pool *pgxpool.Pool
	// reads serves the reads that tolerate a replica's lag (the list and
	// its count, the replay): pool unless WithReads gave a replica's.
	reads   *pgxpool.Pool
	creates *group[createIn, payment.Transaction]
	changes *group[payment.StatusChange, payment.Transaction]
	appends *group[[]payment.LogEntry, struct{}]
	ids     idBlock
	// fallbacks counts the batches written again one payment at a time.
	fallbacks atomic.Int64
}

// BatchFallbacks returns how many batches of writes failed as a whole and
// were written again one payment at a time (a reused nonce, a stale
// configuration view, a status that moved, or an error).
func (p *Payments) BatchFallbacks() int64 { return p.fallbacks.Load() }

var _ payment.Store = (*Payments)(nil)

// NewPayments returns the payment store on pool.
func NewPayments(pool *pgxpool.Pool) *Payments {
	p := &Payments{pool: pool, reads: pool}
	p.creates = newGroup(batchWriters, p.createBatch)
	p.changes = newGroup(batchWriters, p.changeBatch)
	p.appends = newGroup(batchWriters, p.appendBatch)
	return p
}

// WithReads makes p read its lists, their counts and totals, and the
// replay from reads, a read-only pool on a streaming replica of pool's
// database (app.Parts.ReadPool); everything else (the payment path, the
// compare-and-set writes, a read that decides a write) stays on pool. It
// returns p.
func (p *Payments) WithReads(reads *pgxpool.Pool) *Payments {
	if reads != nil {
		p.reads = reads
	}
	return p
}

const entityTransaction = "The transaction"

// SeedPaymentsDemo gives the demo merchants their API secrets
// (payment.DemoMerchantSecret), points every demo provider at the sandbox
// (sandboxURL + "/" + path segment, webhook secret
// payment.DemoWebhookSecret), adds the demo fees when there are no fees
// yet, and the demo currency rates (SeedRatesDemo). Running it again
// refreshes the secrets and addresses.
func (p *Payments) SeedPaymentsDemo(ctx context.Context, box *keyring.Keyring, sandboxURL string) error {
	for _, m := range merchant.Demo() {
		sealed, err := box.Seal([]byte(payment.DemoMerchantSecret(m.ID)), payment.MerchantSecretOwner(m.ID))
		if err != nil {
			return err
		}
		if err := p.SetMerchantSecret(ctx, m.ID, sealed); err != nil {
			return err
		}
	}
	for _, pr := range collab.DemoProviders() {
		sealed, err := box.Seal([]byte(payment.DemoWebhookSecret), payment.ProviderSecretOwner(pr.ID))
		if err != nil {
			return err
		}
		if err := p.SetConnection(ctx, pr.ID, sandboxURL+"/"+pr.PathSegment, sealed); err != nil {
			return err
		}
	}
	_, err := p.pool.Exec(ctx, `
		INSERT INTO fees (collab_id, transaction_type, pay_type_id, currency_from, currency_to, amount_min, amount_max,
			fee_type, value, payer, priority)
		SELECT * FROM (VALUES
			(NULL::integer, 1::smallint, NULL::integer, 'PHP', 'PHP', NULL::numeric, NULL::numeric, 1::smallint, 1.5, 2::smallint, 0),
			(NULL::integer, 2::smallint, NULL::integer, 'PHP', 'PHP', NULL::numeric, NULL::numeric, 2::smallint, 15.00, 1::smallint, 0)
		) AS v
		WHERE NOT EXISTS (SELECT 1 FROM fees)`)
	if err != nil {
		return fmt.Errorf("seed demo fees: %w", err)
	}
	return NewCurrencies(p.pool).SeedRatesDemo(ctx)
}
