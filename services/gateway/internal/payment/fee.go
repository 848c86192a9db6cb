package payment

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/paygate/paygate/services/gateway/internal/money"
)

// Decimal4 is a non-negative decimal with four fraction digits, held as an
// integer of ten-thousandths (a percentage such as 2.5 or a fixed fee).
type Decimal4 int64

// ParseDecimal4 reads "2.5", "2.5000" or "10".
func ParseDecimal4(s string) (Decimal4, error) {
	whole, frac, _ := strings.Cut(strings.TrimSpace(s), ".")
	if whole == "" || len(frac) > 4 || !digits(whole) || !digits(frac) || len(whole) > 14 {
		return 0, fmt.Errorf("%q is not a decimal with at most four fraction digits", s)
	}
	frac += strings.Repeat("0", 4-len(frac))
	w, _ := strconv.ParseInt(whole, 10, 64)
	f, _ := strconv.ParseInt(frac, 10, 64)
	return Decimal4(w*10000 + f), nil
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// String returns the value with four fraction digits.
func (d Decimal4) String() string { return fmt.Sprintf("%d.%04d", d/10000, d%10000) }

// Fee is a fee rule (spec 02 §3 Fee, §5 fee conflicts). Zero CollabID,
// Type or PayTypeID match any; unset AmountMin/AmountMax are open ends.
type Fee struct {
	ID           int64
	CollabID     int32
	Type         Type
	PayTypeID    int32
	CurrencyFrom string
	CurrencyTo   string
	AmountMin    money.Amount
	AmountMax    money.Amount
	FeeType      FeeType
	Value        Decimal4
	Payer        int16
	Priority     int32
	Enabled      bool
}

// matches reports whether f applies to a payment.
func (f Fee) matches(collabID int32, t Type, payTypeID int32, currency string, amount money.Amount) bool {
	return f.Enabled &&
		(f.CollabID == 0 || f.CollabID == collabID) &&
		(f.Type == 0 || f.Type == t) &&
		(f.PayTypeID == 0 || f.PayTypeID == payTypeID) &&
		strings.EqualFold(f.CurrencyFrom, currency) && strings.EqualFold(f.CurrencyTo, currency) &&
		(!f.AmountMin.IsSet() || amount.CentsValue() >= f.AmountMin.CentsValue()) &&
		(!f.AmountMax.IsSet() || amount.CentsValue() <= f.AmountMax.CentsValue())
}

// specificity is the weight of spec 02 §5: 1000 for no collab, 100 for no
// type, 10 for no pay type; lower is more specific.
func (f Fee) specificity() int {
	w := 0
	if f.CollabID == 0 {
		w += 1000
	}
	if f.Type == 0 {
		w += 100
	}
	if f.PayTypeID == 0 {
		w += 10
	}
	return w
}

// SelectFee returns the fee that applies to a payment among fees, or false:
// the most specific enabled match, then the higher priority, then the lower
// id.
func SelectFee(fees []Fee, collabID int32, t Type, payTypeID int32, currency string, amount money.Amount) (Fee, bool) {
	var best Fee
	found := false
	for _, f := range fees {
		if !f.matches(collabID, t, payTypeID, currency, amount) {
			continue
		}
		if !found || better(f, best) {
			best, found = f, true
		}
	}
	return best, found
}

// Wins reports whether a wins over b where both apply (spec 02 §5): the
// more specific one, then the higher priority, then the lower id. It is the
// order SelectFee picks by; an id of 0 (a fee not saved yet) counts as
// newer than every saved fee.
func Wins(a, b Fee) bool { return better(a, b) }

func better(a, b Fee) bool {
	if sa, sb := a.specificity(), b.specificity(); sa != sb {
		return sa < sb
	}
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	if a.ID == 0 || b.ID == 0 {
		return b.ID == 0 && a.ID != 0
	}
	return a.ID < b.ID
}

// Conflicts reports whether fees a and b conflict (spec 02 §5): they share
// currencies, their amount ranges overlap (an unset end is open), and each
// of collab, type and pay type is empty on one of them or equal on both.
// Whether they are enabled is the caller's question: only enabled fees
// apply, so only they conflict.
func Conflicts(a, b Fee) bool {
	return strings.EqualFold(a.CurrencyFrom, b.CurrencyFrom) && strings.EqualFold(a.CurrencyTo, b.CurrencyTo) &&
		(!a.AmountMin.IsSet() || !b.AmountMax.IsSet() || a.AmountMin.CentsValue() <= b.AmountMax.CentsValue()) &&
		(!b.AmountMin.IsSet() || !a.AmountMax.IsSet() || b.AmountMin.CentsValue() <= a.AmountMax.CentsValue()) &&
		(a.CollabID == 0 || b.CollabID == 0 || a.CollabID == b.CollabID) &&
		(a.Type == 0 || b.Type == 0 || a.Type == b.Type) &&
		(a.PayTypeID == 0 || b.PayTypeID == 0 || a.PayTypeID == b.PayTypeID)
}

// AmountBounds returns the points, in cents, where the set of fees among
// fees that match an amount can change: 0, every AmountMin and every
// AmountMax plus one cent, sorted and distinct. Between two neighbouring
// points (and after the last) SelectFee answers the same fee for every
// amount, so the point itself stands for its range.
func AmountBounds(fees []Fee) []int64 {
	points := []int64{0}
	for _, f := range fees {
		if f.AmountMin.IsSet() && f.AmountMin.CentsValue() > 0 {
			points = append(points, f.AmountMin.CentsValue())
		}
		if f.AmountMax.IsSet() {
			points = append(points, f.AmountMax.CentsValue()+1)
		}
	}
	slices.Sort(points)
	return slices.Compact(points)
}

// Charge returns the fee on amount: a percentage rounded half up to the
// cent, the fixed value (rounded half up to the cent), or zero for a fee of
// type None.
func (f Fee) Charge(amount money.Amount) money.Amount {
	if f.FeeType != FeePercent && f.FeeType != FeeFixed {
		return money.Cents(0)
	}
	// value is in ten-thousandths; a percentage divides by 100 more.
	num := new(big.Int).SetInt64(int64(f.Value))
	den := big.NewInt(100)
	if f.FeeType == FeePercent {
		num.Mul(num, big.NewInt(amount.CentsValue()))
		den = big.NewInt(1_000_000)
	}
	num.Mul(num, big.NewInt(2))
	num.Add(num, den)
	num.Quo(num, new(big.Int).Mul(den, big.NewInt(2)))
	return money.Cents(num.Int64())
}
