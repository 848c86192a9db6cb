package statistics

import (
	"math/big"
	"slices"
	"strings"
	"time"
)

// The console's timezones are the 25 whole-hour offsets from UTC-12 to
// UTC+12. The cash rollup keeps every successful transaction once per
// offset, under the local day it was made on in that offset, so that a
// range starting at local midnight reads whole local days.
const (
	MinOffset = -12
	MaxOffset = 12
)

// Offsets lists every offset of the cash rollup, in hours.
var Offsets = func() []int {
	out := make([]int, 0, MaxOffset-MinOffset+1)
	for o := MinOffset; o <= MaxOffset; o++ {
		out = append(out, o)
	}
	return out
}()

// OffsetOf returns the offset, in hours, in which the whole UTC hour t is a
// local midnight. Every whole hour is the midnight of one offset, except
// 12:00 UTC, which is the midnight of both UTC-12 and UTC+12; then it
// returns -12. The two split time into the same 24-hour days, so either
// answers a range the same way. The zone written in a request does not
// matter: only the instant does.
func OffsetOf(t time.Time) int {
	h := t.UTC().Hour()
	if h <= 12 {
		return -h
	}
	return 24 - h
}

// LocalDay returns the day (midnight UTC of that date) that t falls on in
// the zone offset hours from UTC.
func LocalDay(t time.Time, offset int) time.Time {
	return Day.Bucket(t.Add(time.Duration(offset) * time.Hour))
}

// Successful reports whether a state counts in the cash figures: the
// successful family (FamilyOf decides which codes that is).
func Successful(s State) bool { return FamilyOf(s.Status) == FamilySuccessful }

// CashKey is one row of the cash rollup.
type CashKey struct {
	// Offset is the zone in hours from UTC, -12 … 12.
	Offset int
	// LocalDay is the day the transaction was made on in that zone.
	LocalDay time.Time
	// UTCDay is the day it was made on in UTC: it decides the rate its
	// amount is converted at.
	UTCDay     time.Time
	MerchantID int32
	Type       int32
	Currency   string
}

// CashDeltas are a batch's changes to the cash rollup, merged per key.
type CashDeltas struct {
	rows map[CashKey]*Delta
}

// NewCashDeltas returns empty changes of the cash rollup.
func NewCashDeltas() *CashDeltas { return &CashDeltas{rows: map[CashKey]*Delta{}} }

// Move records that a transaction left old (nil when it had no state) for
// now. Only successful states are in the cash rollup: a transaction that
// leaves success loses its row in every offset, one that enters it gains
// them, and one that stays successful moves only if its key changed.
func (d *CashDeltas) Move(old *State, now State) {
	if old != nil && Successful(*old) {
		d.add(*old, -1)
	}
	if Successful(now) {
		d.add(now, 1)
	}
}

func (d *CashDeltas) add(s State, sign int64) {
	var a big.Rat
	if _, ok := a.SetString(s.Amount); ok && sign < 0 {
		a.Neg(&a)
	}
	utcDay := Day.Bucket(s.CreatedAt)
	for _, o := range Offsets {
		k := CashKey{Offset: o, LocalDay: LocalDay(s.CreatedAt, o), UTCDay: utcDay,
			MerchantID: s.MerchantID, Type: s.Type, Currency: s.Currency}
		row := d.rows[k]
		if row == nil {
			row = &Delta{}
			d.rows[k] = row
		}
		row.N += sign
		row.Amount.Add(&row.Amount, &a)
	}
}

// CashRowDelta is one merged change of the cash rollup, with its amount as
// a decimal string.
type CashRowDelta struct {
	CashKey
	N      int64
	Amount string
}

// Rows returns the non-empty changes in key order (the order writers lock
// rollup rows in).
func (d *CashDeltas) Rows() []CashRowDelta {
	out := make([]CashRowDelta, 0, len(d.rows))
	for k, v := range d.rows {
		if v.N == 0 && v.Amount.Sign() == 0 {
			continue
		}
		out = append(out, CashRowDelta{CashKey: k, N: v.N, Amount: formatRat(&v.Amount)})
	}
	slices.SortFunc(out, func(a, b CashRowDelta) int { return compareCashKeys(a.CashKey, b.CashKey) })
	return out
}

func compareCashKeys(a, b CashKey) int {
	if a.Offset != b.Offset {
		return a.Offset - b.Offset
	}
	if c := a.LocalDay.Compare(b.LocalDay); c != 0 {
		return c
	}
	if c := a.UTCDay.Compare(b.UTCDay); c != 0 {
		return c
	}
	if a.MerchantID != b.MerchantID {
		if a.MerchantID < b.MerchantID {
			return -1
		}
		return 1
	}
	if a.Type != b.Type {
		if a.Type < b.Type {
			return -1
		}
		return 1
	}
	return strings.Compare(a.Currency, b.Currency)
}
