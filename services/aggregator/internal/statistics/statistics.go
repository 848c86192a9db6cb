// Package statistics is the aggregator's read side of payments: the last
// state of every transaction, rolled up by hour, day and month, and the
// Financial Dashboard's figures answered from those rollups
// (docs/statistics.md). It imports no transport or storage code: the store,
// the source of a rebuild and the callers' scope come in through the
// interfaces and types below.
package statistics

import (
	"context"
	"math/big"
	"regexp"
	"time"
)

// State is a transaction as one of its events (or a rebuild) carries it.
type State struct {
	// ID is the transaction's id.
	ID int64
	// Version is 1 when made and one more at every status change; together
	// with ID it identifies the event.
	Version int64
	// CreatedAt is when the transaction was made: it decides its buckets.
	CreatedAt time.Time
	// UpdatedAt is when it last changed (the as_of of the figures).
	UpdatedAt    time.Time
	MerchantID   int32
	CollabID     int32
	ProviderID   int32
	MerchantName string
	ProviderName string
	// Status is the status code of spec 02 §4.
	Status int32
	// Type is 1 deposit, 2 withdrawal.
	Type int32
	// Currency is the ISO code of Amount.
	Currency string
	// Amount is a decimal string.
	Amount string
}

// Rate is a currency's rate against USD from its effective day (UTC).
type Rate struct {
	// ID increases with every rate set; a later one for the same currency
	// and day replaces an earlier one.
	ID       int64
	Currency string
	// EffectiveFrom is the first UTC day (midnight UTC) it is in force.
	EffectiveFrom time.Time
	// USDRate is USD per unit of the currency, a decimal string.
	USDRate string
}

// Store keeps the states, rollups and rates. Every method's errors are
// internal unless said otherwise.
type Store interface {
	// Apply applies states in one database transaction: each one whose
	// version is higher than the stored one replaces it and moves its counts
	// and amounts from the old state's rollup rows to the new one's; the
	// others change nothing. It returns how many were applied.
	Apply(ctx context.Context, states []State) (int, error)
	// ApplyRates stores rates; a rate changes nothing when the stored one
	// of its currency and day has the same or a later id.
	ApplyRates(ctx context.Context, rates []Rate) error
	// HasRate reports whether currency has at least one rate.
	HasRate(ctx context.Context, currency string) (bool, error)
	// Figures answers q.
	Figures(ctx context.Context, q Query) (Figures, error)
	// PruneMinutes deletes the minute buckets before before and answers
	// how many rows went.
	PruneMinutes(ctx context.Context, before time.Time) (int64, error)
}

// Status codes of spec 02 §4 that the families name.
const (
	StatusSuccess          int32 = 4
	StatusPending          int32 = 3
	StatusScheduled        int32 = 2
	StatusPendingArchive   int32 = 300
	StatusNotConfirmed     int32 = 1
	StatusCancelled        int32 = -1
	StatusPSPError         int32 = -2
	StatusValidationFailed int32 = -6
)

// Transaction types.
const (
	TypeDeposit    int32 = 1
	TypeWithdrawal int32 = 2
)

// Family is the dashboard figure a status counts in.
type Family int

// The families, one per figure of the statistics response.
const (
	FamilyFailed Family = iota
	FamilySuccessful
	FamilyPending
	FamilyRefunded
	FamilyValidationFailed
	FamilyPSPError
	FamilyCancelled
	FamilyNotConfirmed
)

// FamilyOf returns the family of a status code. This is the one place the
// mapping lives (docs/statistics.md): 4 successful; 3, 2 and 300 pending;
// 1 not confirmed; -1 cancelled; -2 PSP error; -6 validation failed; every
// other code (0, -3, -4, -5 and any unknown) failed. No code means refunded
// yet.
func FamilyOf(status int32) Family {
	switch status {
	case StatusSuccess:
		return FamilySuccessful
	case StatusPending, StatusScheduled, StatusPendingArchive:
		return FamilyPending
	case StatusNotConfirmed:
		return FamilyNotConfirmed
	case StatusCancelled:
		return FamilyCancelled
	case StatusPSPError:
		return FamilyPSPError
	case StatusValidationFailed:
		return FamilyValidationFailed
	default:
		return FamilyFailed
	}
}

var decimalPattern = regexp.MustCompile(`^-?[0-9]{1,30}(\.[0-9]{1,12})?$`)

// ValidDecimal reports whether s is a plain decimal number such as "12.50",
// with at most 12 decimals (rollup sums stay exact).
func ValidDecimal(s string) bool { return decimalPattern.MatchString(s) }

// AddDecimal returns a+b, both plain decimals (an empty one counts as 0).
func AddDecimal(a, b string) string {
	var x, y big.Rat
	if a != "" {
		x.SetString(a)
	}
	if b != "" {
		y.SetString(b)
	}
	return formatRat(x.Add(&x, &y))
}

// formatRat writes a terminating decimal without trailing zeros.
func formatRat(r *big.Rat) string {
	s := r.FloatString(12)
	for len(s) > 1 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// compareDecimal compares two plain decimals.
func compareDecimal(a, b string) int {
	var x, y big.Rat
	x.SetString(a)
	y.SetString(b)
	return x.Cmp(&y)
}
