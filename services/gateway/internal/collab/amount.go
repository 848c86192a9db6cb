package collab

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/paygate/paygate/services/internal/apperr"
)

// MaxAmountCents is the largest amount a limit may hold, in cents
// (999,999,999,999,999.99): well inside the numeric(20,2) columns and int64.
const MaxAmountCents = 99_999_999_999_999_999

// Amount is a limit amount in cents, or no amount at all. The zero value is
// "no amount". Amounts are exact: they never pass through floats.
type Amount struct {
	cents int64
	set   bool
}

// Cents returns an amount of c cents.
func Cents(c int64) Amount { return Amount{cents: c, set: true} }

// ParseAmount reads a decimal string with at most two fraction digits, such
// as "1500", "1500.5" or "1500.00". An empty string (after trimming spaces)
// is no amount. A negative amount parses; Limits.Validate refuses it with its
// own message. Errors are invalid.
func ParseAmount(field, s string) (Amount, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Amount{}, nil
	}
	bad := apperr.Invalid("%s must be an amount such as 1500.00 (at most two decimal places), not %q.", field, s)
	neg := false
	switch s[0] {
	case '-':
		neg, s = true, s[1:]
	case '+':
		s = s[1:]
	}
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || !allDigits(whole) || !allDigits(frac) || len(frac) > 2 || hasDot && frac == "" {
		return Amount{}, bad
	}
	for len(frac) < 2 {
		frac += "0"
	}
	whole = strings.TrimLeft(whole, "0")
	if len(whole) > 15 {
		return Amount{}, apperr.Invalid("%s is too large: at most 999999999999999.99.", field)
	}
	w, _ := strconv.ParseInt("0"+whole, 10, 64)
	f, _ := strconv.ParseInt(frac, 10, 64)
	c := w*100 + f
	if neg {
		c = -c
	}
	return Cents(c), nil
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// IsSet reports whether there is an amount.
func (a Amount) IsSet() bool { return a.set }

// CentsValue returns the amount in cents (0 when there is none).
func (a Amount) CentsValue() int64 { return a.cents }

// String returns the amount with two fraction digits ("1500.00"), or "" when
// there is none.
func (a Amount) String() string {
	if !a.set {
		return ""
	}
	c, sign := a.cents, ""
	if c < 0 {
		c, sign = -c, "-"
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// Limits are the smallest and largest amounts of deposits and withdrawals.
// An amount that is not set means no limit.
type Limits struct {
	MinDeposit, MaxDeposit, MinWithdraw, MaxWithdraw Amount
}

// LimitsChange changes limits: a nil field keeps its amount, "" removes it,
// anything else must parse as an Amount.
type LimitsChange struct {
	MinDeposit, MaxDeposit, MinWithdraw, MaxWithdraw *string
}

// IsEmpty reports whether the change names no amount.
func (c LimitsChange) IsEmpty() bool {
	return c.MinDeposit == nil && c.MaxDeposit == nil && c.MinWithdraw == nil && c.MaxWithdraw == nil
}

// limit field names, as the console and the activity log name them.
const (
	fieldMinDeposit  = "minimalDepositAmount"
	fieldMaxDeposit  = "maximalDepositAmount"
	fieldMinWithdraw = "minimalWithdrawAmount"
	fieldMaxWithdraw = "maximalWithdrawAmount"
)

// Apply returns l with the change applied and validated (see Validate).
// Errors are invalid.
func (l Limits) Apply(c LimitsChange) (Limits, error) {
	out := l
	for _, f := range []struct {
		name string
		in   *string
		dst  *Amount
	}{
		{fieldMinDeposit, c.MinDeposit, &out.MinDeposit},
		{fieldMaxDeposit, c.MaxDeposit, &out.MaxDeposit},
		{fieldMinWithdraw, c.MinWithdraw, &out.MinWithdraw},
		{fieldMaxWithdraw, c.MaxWithdraw, &out.MaxWithdraw},
	} {
		if f.in == nil {
			continue
		}
		a, err := ParseAmount(f.name, *f.in)
		if err != nil {
			return l, err
		}
		*f.dst = a
	}
	if err := out.Validate(); err != nil {
		return l, err
	}
	return out, nil
}

// Validate checks that every amount is at least 0 and at most MaxAmountCents,
// and that each minimum is at most its maximum. Errors are invalid.
func (l Limits) Validate() error {
	for _, f := range l.fields() {
		if !f.amount.IsSet() {
			continue
		}
		if f.amount.cents < 0 {
			return apperr.Invalid("Limits cannot be negative: %s is %s.", f.name, f.amount)
		}
		if f.amount.cents > MaxAmountCents {
			return apperr.Invalid("%s is too large: at most 999999999999999.99.", f.name)
		}
	}
	if l.MinDeposit.IsSet() && l.MaxDeposit.IsSet() && l.MinDeposit.cents > l.MaxDeposit.cents {
		return apperr.Invalid("The minimal deposit amount (%s) cannot be greater than the maximal deposit amount (%s).", l.MinDeposit, l.MaxDeposit)
	}
	if l.MinWithdraw.IsSet() && l.MaxWithdraw.IsSet() && l.MinWithdraw.cents > l.MaxWithdraw.cents {
		return apperr.Invalid("The minimal withdrawal amount (%s) cannot be greater than the maximal withdrawal amount (%s).", l.MinWithdraw, l.MaxWithdraw)
	}
	return nil
}

type limitField struct {
	name   string
	amount Amount
}

func (l Limits) fields() []limitField {
	return []limitField{
		{fieldMinDeposit, l.MinDeposit},
		{fieldMaxDeposit, l.MaxDeposit},
		{fieldMinWithdraw, l.MinWithdraw},
		{fieldMaxWithdraw, l.MaxWithdraw},
	}
}

// diff returns the amounts that differ between l and next, by field name,
// before and after ("" for none), and the names in a stable order.
func (l Limits) diff(next Limits) (before, after map[string]string, names []string) {
	before, after = map[string]string{}, map[string]string{}
	nf := next.fields()
	for i, f := range l.fields() {
		if f.amount != nf[i].amount {
			before[f.name], after[f.name] = f.amount.String(), nf[i].amount.String()
			names = append(names, f.name)
		}
	}
	return before, after, names
}
