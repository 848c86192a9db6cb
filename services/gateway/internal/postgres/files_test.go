package postgres_test

import (
	"context"
	"testing"

	"github.com/paygate/paygate/services/gateway/internal/export"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
)

// TestSnapshotCarriesEveryExportColumn checks that the export's narrow read
// gives every column of every export type the value the whole transaction
// gives, on rows with every such field set and on rows with them empty,
// in the list's order, with and without logs, across page boundaries.
func TestSnapshotCarriesEveryExportColumn(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, collab := partitionedSchema(t)
	if _, err := pool.Exec(ctx, `
		UPDATE transactions SET merchant_client_id = 'mc-' || id, provider_transaction_id = 'ptid-' || id,
			status_message = 'Paid ' || id, error_message = 'none', payment_method_value = '0917' || id,
			payment_ip_address = '203.0.113.' || (id % 250), destination_amount = 12.34, destination_currency = 'USD',
			applied_fee_amount = 0.5 * id, applied_fee_currency = 'PHP', applied_fee_type = 1, applied_fee_value = 1.5,
			callbacks_delivered = 1, callbacks_total = 2, poll_attempts = 3, status = 4, transaction_type = 2,
			amount = 1000.05 + id
		WHERE id % 2 = 0`); err != nil {
		t.Fatal(err)
	}
	payments := postgres.NewPayments(pool)
	files := postgres.NewFiles(pool)
	f := payment.ListFilter{CollabID: collab, Scope: merchant.Scope{All: true}}
	for _, withLogs := range []bool{false, true} {
		var got []payment.Transaction
		err := files.Snapshot(ctx, f, withLogs, 7, func(_ context.Context, page []payment.Transaction, _ []export.LogRecord) error {
			if len(page) > 7 {
				t.Errorf("a page of %d, more than 7", len(page))
			}
			got = append(got, page...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 140 {
			t.Fatalf("withLogs %v: %d transactions, want 140", withLogs, len(got))
		}
		for i, tx := range got {
			if i > 0 && (tx.CreatedAt.After(got[i-1].CreatedAt) || tx.CreatedAt.Equal(got[i-1].CreatedAt) && tx.ID > got[i-1].ID) {
				t.Fatalf("row %d (%d) is out of the list's order", i, tx.ID)
			}
			whole, err := payments.Transaction(ctx, tx.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, ti := range export.Types() {
				for _, col := range ti.Columns {
					a, b := col.Cell(export.Row{Transaction: tx}), col.Cell(export.Row{Transaction: whole})
					if !a.Time.Equal(b.Time) || a.Kind != b.Kind || a.Text != b.Text || a.Int != b.Int {
						t.Errorf("transaction %d, %s column %s: snapshot %+v, whole %+v", tx.ID, ti.Slug, col.Field, a, b)
					}
				}
			}
		}
	}
}
