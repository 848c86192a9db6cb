package statistics

import (
	"math/big"
	"slices"
	"strings"
	"time"
)

// Grain is a rollup's bucket size.
type Grain int

// The rollups: by UTC hour, day and month, and by minute for the last
// MinuteRetention (issue 29: ranges on whole minutes).
const (
	Hour Grain = iota
	Day
	Month
	Minute
)

// Grains lists the rollups kept for every transaction; Minute is kept only
// for transactions made within MinuteRetention (MinuteHorizon).
var Grains = []Grain{Hour, Day, Month}

// MinuteRetention is how long minute buckets are kept: a range whose ends
// are not on whole hours must lie within it.
const MinuteRetention = 48 * time.Hour

// MinuteHorizon is the oldest creation time whose minute bucket is kept at
// now: the minute rollup is written for transactions made after it and
// pruned before it (with an hour's margin, so that what a query may read is
// always whole).
func MinuteHorizon(now time.Time) time.Time {
	return now.Add(-MinuteRetention - time.Hour).Truncate(time.Minute)
}

// Bucket returns the UTC start of the hour, day or month t is in.
func (g Grain) Bucket(t time.Time) time.Time {
	t = t.UTC()
	switch g {
	case Day:
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	case Month:
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	case Minute:
		return t.Truncate(time.Minute)
	default:
		return t.Truncate(time.Hour)
	}
}

// Key is one rollup row's identity below its grain.
type Key struct {
	Bucket     time.Time
	MerchantID int32
	CollabID   int32
	ProviderID int32
	Status     int32
	Type       int32
	Currency   string
}

// Delta is what a batch adds to one rollup row.
type Delta struct {
	N      int64
	Amount big.Rat
}

// Deltas are a batch's changes to one rollup, merged per key.
type Deltas struct {
	grain Grain
	rows  map[Key]*Delta
}

// NewDeltas returns empty changes of the rollup of grain g.
func NewDeltas(g Grain) *Deltas { return &Deltas{grain: g, rows: map[Key]*Delta{}} }

// Move records that a transaction left old (nil when it had no state) for
// now: old's row loses one and its amount, now's gains them.
func (d *Deltas) Move(old *State, now State) {
	if old != nil {
		d.add(*old, -1)
	}
	d.add(now, 1)
}

func (d *Deltas) add(s State, sign int64) {
	k := Key{Bucket: d.grain.Bucket(s.CreatedAt), MerchantID: s.MerchantID, CollabID: s.CollabID,
		ProviderID: s.ProviderID, Status: s.Status, Type: s.Type, Currency: s.Currency}
	row := d.rows[k]
	if row == nil {
		row = &Delta{}
		d.rows[k] = row
	}
	row.N += sign
	var a big.Rat
	if _, ok := a.SetString(s.Amount); ok {
		if sign < 0 {
			a.Neg(&a)
		}
		row.Amount.Add(&row.Amount, &a)
	}
}

// Row is one merged change, with its amount as a decimal string.
type Row struct {
	Key
	N      int64
	Amount string
}

// Rows returns the non-empty changes in key order (writers lock rollup rows
// in that order, so that concurrent batches do not deadlock).
func (d *Deltas) Rows() []Row {
	out := make([]Row, 0, len(d.rows))
	for k, v := range d.rows {
		if v.N == 0 && v.Amount.Sign() == 0 {
			continue
		}
		out = append(out, Row{Key: k, N: v.N, Amount: formatRat(&v.Amount)})
	}
	slices.SortFunc(out, func(a, b Row) int { return compareKeys(a.Key, b.Key) })
	return out
}

func compareKeys(a, b Key) int {
	if c := a.Bucket.Compare(b.Bucket); c != 0 {
		return c
	}
	for _, p := range [][2]int32{{a.MerchantID, b.MerchantID}, {a.CollabID, b.CollabID},
		{a.ProviderID, b.ProviderID}, {a.Status, b.Status}, {a.Type, b.Type}} {
		if p[0] != p[1] {
			if p[0] < p[1] {
				return -1
			}
			return 1
		}
	}
	return strings.Compare(a.Currency, b.Currency)
}

// Newest keeps, of states of the same transaction, the one of the highest
// version, and returns them in id order.
func Newest(states []State) []State {
	byID := make(map[int64]int, len(states))
	out := make([]State, 0, len(states))
	for _, s := range states {
		if i, ok := byID[s.ID]; ok {
			if s.Version > out[i].Version {
				out[i] = s
			}
			continue
		}
		byID[s.ID] = len(out)
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b State) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return out
}
