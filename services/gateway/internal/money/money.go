// Package money holds the gateway's amounts: exact decimals with two
// fraction digits, kept in cents and never passed through floats, and their
// parsing from the decimal strings the API carries.
package money

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/paygate/paygate/services/internal/apperr"
)

// Amount is an amount in cents, or no amount at all. The zero value is
// "no amount". Amounts are exact: they never pass through floats.
type Amount struct {
	cents int64
	set   bool
}

// Cents returns an amount of c cents.
func Cents(c int64) Amount { return Amount{cents: c, set: true} }

// Parse reads a decimal string: digits with at most two fraction digits,
// such as "1500", "1500.5" or "1500.00", and nothing else (no spaces, no
// plus sign, no exponent). An empty string is no amount. A negative amount
// ("-5.00") parses; callers that refuse one say so in their own words.
// Errors are invalid.
func Parse(field, s string) (Amount, error) {
	if s == "" {
		return Amount{}, nil
	}
	// The error is made only when needed: every amount the store reads
	// comes through here, and formatting it each time cost an export a
	// tenth of its CPU.
	orig, neg := s, false
	bad := func() error {
		return apperr.Invalid("%s must be an amount such as 1500.00 (digits, at most two decimal places), not %q.", field, orig)
	}
	if s[0] == '-' {
		neg, s = true, s[1:]
	}
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || !allDigits(whole) || !allDigits(frac) || len(frac) > 2 || hasDot && frac == "" {
		return Amount{}, bad()
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
