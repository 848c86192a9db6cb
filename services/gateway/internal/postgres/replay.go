package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/gateway/internal/payment"
)

// TransactionIDRange returns the lowest and highest transaction id (0 and 0
// without transactions); both are read from the primary key's index.
func (p *Payments) TransactionIDRange(ctx context.Context) (minID, maxID int64, err error) {
	err = p.pool.QueryRow(ctx, `SELECT COALESCE(min(id), 0), COALESCE(max(id), 0) FROM transactions`).Scan(&minID, &maxID)
	if err != nil {
		return 0, 0, fmt.Errorf("read transaction id range: %w", err)
	}
	return minID, maxID, nil
}

// TransactionsFrom returns up to limit transactions with fromID <= id <
// toID in id order, as they are now (with their versions): one query on
// the primary key, so that a caller pages through any range by keyset with
// bounded memory.
func (p *Payments) TransactionsFrom(ctx context.Context, fromID, toID int64, limit int) ([]payment.Transaction, error) {
	rows, err := p.pool.Query(ctx, `SELECT `+transactionColumns+` FROM transactions
		WHERE id >= $1 AND id < $2 ORDER BY id LIMIT $3`, fromID, toID, limit)
	if err != nil {
		return nil, fmt.Errorf("select transactions from %d: %w", fromID, err)
	}
	ts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (payment.Transaction, error) { return scanTransaction(row) })
	if err != nil {
		return nil, fmt.Errorf("read transactions from %d: %w", fromID, err)
	}
	return ts, nil
}
