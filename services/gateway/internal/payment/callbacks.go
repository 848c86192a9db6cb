package payment

import "context"

// CallbackTally is the callbacks service's count of one transaction's
// deliveries: Delivered of Total reached the merchant. Version grows with
// every change of the tally, so an older tally never replaces a newer one.
type CallbackTally struct {
	TransactionID    int64
	Delivered, Total int32
	Version          int64
}

// TallyStore keeps transactions' callback tallies.
type TallyStore interface {
	// SetCallbackTally stores t when it is newer than the stored tally and
	// reports whether it did (false for an older or repeated one, or an
	// unknown transaction).
	SetCallbackTally(ctx context.Context, t CallbackTally) (bool, error)
}
