package collab

import (
	"github.com/paygate/paygate/services/gateway/internal/money"
	"github.com/paygate/paygate/services/internal/apperr"
)

// MaxAmountCents is the largest amount a limit may hold, in cents
// (999,999,999,999,999.99): well inside the numeric(20,2) columns and int64.
const MaxAmountCents = 99_999_999_999_999_999

// Limits are the smallest and largest amounts of deposits and withdrawals.
// An amount that is not set means no limit.
type Limits struct {
	MinDeposit, MaxDeposit, MinWithdraw, MaxWithdraw money.Amount
}

// LimitsChange changes limits: a nil field keeps its amount, "" removes it,
// anything else must parse as a money.Amount.
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
		dst  *money.Amount
	}{
		{fieldMinDeposit, c.MinDeposit, &out.MinDeposit},
		{fieldMaxDeposit, c.MaxDeposit, &out.MaxDeposit},
		{fieldMinWithdraw, c.MinWithdraw, &out.MinWithdraw},
		{fieldMaxWithdraw, c.MaxWithdraw, &out.MaxWithdraw},
	} {
		if f.in == nil {
			continue
		}
		a, err := money.Parse(f.name, *f.in)
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
		if f.amount.CentsValue() < 0 {
			return apperr.Invalid("Limits cannot be negative: %s is %s.", f.name, f.amount)
		}
		if f.amount.CentsValue() > MaxAmountCents {
			return apperr.Invalid("%s is too large: at most 999999999999999.99.", f.name)
		}
	}
	if l.MinDeposit.IsSet() && l.MaxDeposit.IsSet() && l.MinDeposit.CentsValue() > l.MaxDeposit.CentsValue() {
		return apperr.Invalid("The minimal deposit amount (%s) cannot be greater than the maximal deposit amount (%s).", l.MinDeposit, l.MaxDeposit)
	}
	if l.MinWithdraw.IsSet() && l.MaxWithdraw.IsSet() && l.MinWithdraw.CentsValue() > l.MaxWithdraw.CentsValue() {
		return apperr.Invalid("The minimal withdrawal amount (%s) cannot be greater than the maximal withdrawal amount (%s).", l.MinWithdraw, l.MaxWithdraw)
	}
	return nil
}

type limitField struct {
	name   string
	amount money.Amount
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
