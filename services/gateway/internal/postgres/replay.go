package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// replayCatchUp bounds TransactionIDRange's wait for a read replica.
const replayCatchUp = 30 * time.Second

// TransactionIDRange returns the lowest and highest transaction id (0 and 0
// without transactions); both are read from the primary key's index.
//
// On a read replica (WithReads) it first waits, up to replayCatchUp, until
// the replica has replayed everything the primary had written when it was
// called: a rebuild reads the range after truncating what it derived, and
// the live events it consumed before that must all be in what it streams
// next, at their versions, or a transaction would be missing or stale in
// its figures until its next event. A replica that does not catch up in
// time fails the call, and the rebuild is tried again later.
func (p *Payments) TransactionIDRange(ctx context.Context) (minID, maxID int64, err error) {
	wait, cancel := context.WithTimeout(ctx, replayCatchUp)
	defer cancel()
	if err := pgdb.WaitReplayed(wait, p.pool, p.reads); err != nil {
		return 0, 0, fmt.Errorf("read transaction id range (the read replica must catch up within %s): %w", replayCatchUp, err)
	}
	err = p.reads.QueryRow(ctx, `SELECT COALESCE(min(id), 0), COALESCE(max(id), 0) FROM transactions`).Scan(&minID, &maxID)
	if err != nil {
		return 0, 0, fmt.Errorf("read transaction id range: %w", err)
	}
	return minID, maxID, nil
}

// TransactionsFrom returns up to limit transactions with fromID <= id <
// toID in id order, as they are now (with their versions; on a read
// replica, as it has replayed them): one query on
// the primary key, so that a caller pages through any range by keyset with
// bounded memory.
func (p *Payments) TransactionsFrom(ctx context.Context, fromID, toID int64, limit int) ([]payment.Transaction, error) {
	rows, err := p.reads.Query(ctx, `SELECT `+transactionColumns+` FROM transactions
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
