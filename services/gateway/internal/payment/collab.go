package payment

import "github.com/paygate/paygate/services/gateway/internal/money"

// Collab is what a payment needs of the collab it goes through: whether it
// takes the payment's direction, pay type and amount, whether it validates
// and sends callbacks, and whether its mode settles payments without the
// provider. The store reads it from the collab's own tables.
type Collab struct {
	// ID is the collab's id.
	ID int32
	// MerchantName and ProviderName name the collab in messages.
	MerchantName, ProviderName string
	// ProviderID is the collab's provider.
	ProviderID int32
	// ProviderEnabled is the provider's own switch.
	ProviderEnabled bool
	// Enabled is the collab's switch.
	Enabled bool
	// Deposits and Withdrawals are true when the provider supports the
	// direction and the collab's switch for it is on.
	Deposits, Withdrawals bool
	// ValidateDeposits and ValidateWithdrawals run the merchant's
	// validation endpoints on that direction.
	ValidateDeposits, ValidateWithdrawals bool
	// Callbacks is true when the merchant is sent callbacks.
	Callbacks bool
	// Forced is the outcome the collab's mode forces, if any.
	Forced Forced
	// Limits are the collab's limits.
	Limits Limits
	// PayTypes are the pay types on the collab.
	PayTypes []CollabPayType
}

// Name returns "Merchant × Provider", as messages name a collab.
func (c Collab) Name() string { return c.MerchantName + " × " + c.ProviderName }

// CollabPayType is a pay type on a collab.
type CollabPayType struct {
	// PayTypeID is the pay type's id.
	PayTypeID int32
	// Name and Code are its display name and short code.
	Name, Code string
	// Deposits and Withdrawals are true when the provider offers the pay type
	// in that direction and the collab's switches (its own and the pay
	// type's) for it are on.
	Deposits, Withdrawals bool
	// Limits are the pay type's own limits.
	Limits Limits
}

// Label returns "Name (CODE)", as the console names a pay type.
func (pt CollabPayType) Label() string { return pt.Name + " (" + pt.Code + ")" }

// Limits are the smallest and largest amounts of deposits and withdrawals;
// an amount that is not set is no limit.
type Limits struct {
	MinDeposit, MaxDeposit, MinWithdraw, MaxWithdraw money.Amount
}

// Forced is the outcome a collab's mode gives its payments without calling
// the provider (for testing a merchant's integration).
type Forced int8

// The forced outcomes.
const (
	// ForcedNone lets the provider decide.
	ForcedNone Forced = iota
	// ForcedSuccess makes every payment succeed.
	ForcedSuccess
	// ForcedFailure makes every payment fail.
	ForcedFailure
)
