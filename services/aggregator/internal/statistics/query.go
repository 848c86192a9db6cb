package statistics

import (
	"regexp"
	"time"

	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/datefilter"
)

// MaxRange is the longest range asked for: 366 days.
const MaxRange = 366 * 24 * time.Hour

// Range is [From, To) of a request: From on a whole minute, To one
// millisecond after the request's inclusive end, also on a whole minute.
type Range struct {
	From time.Time
	To   time.Time
}

// Days returns how many 24-hour days from From the range covers (the last
// one may be short).
func (r Range) Days() int {
	d := r.To.Sub(r.From)
	n := int(d / (24 * time.Hour))
	if d%(24*time.Hour) != 0 {
		n++
	}
	return n
}

// ParseRange reads a request's from and to (RFC 3339 with a zone, to
// inclusive) and checks them, naming the field at fault. Each must be a
// date from datefilter.First to datefilter.Last on its own clock: the
// answer's timestamps could not encode the year 0000 (a 500 before).
func ParseRange(from, to string) (Range, error) {
	f, err := time.Parse(time.RFC3339Nano, from)
	if err != nil {
		return Range{}, apperr.Invalid("from must be a date and time with a zone, such as 2026-11-25T00:00:00+08:00.")
	}
	if !datefilter.In(f) {
		return Range{}, apperr.Invalid("%s.", datefilter.Problem("from"))
	}
	t, err := time.Parse(time.RFC3339Nano, to)
	if err != nil {
		return Range{}, apperr.Invalid("to must be a date and time with a zone, such as 2026-11-25T23:59:59.999+08:00.")
	}
	if !datefilter.In(t) {
		return Range{}, apperr.Invalid("%s.", datefilter.Problem("to"))
	}
	if !f.Truncate(time.Minute).Equal(f) {
		return Range{}, apperr.Invalid("from must fall on a whole minute, such as 2026-11-25T10:15:00+08:00.")
	}
	end := t.Add(time.Millisecond)
	if !end.Truncate(time.Minute).Equal(end) {
		return Range{}, apperr.Invalid("to must end one millisecond before a whole minute, such as 2026-11-25T10:29:59.999+08:00.")
	}
	if !end.After(f) {
		return Range{}, apperr.Invalid("to must not be before from.")
	}
	if end.Sub(f) > MaxRange {
		return Range{}, apperr.Invalid("The range from from to to must be at most 366 days.")
	}
	return Range{From: f.UTC(), To: end.UTC()}, nil
}

var currencyPattern = regexp.MustCompile(`^[A-Z]{3}$`)

// onHour reports whether t is on a whole UTC hour.
func onHour(t time.Time) bool { return t.Truncate(time.Hour).Equal(t) }

// CheckMinutes refuses a range whose minute parts (an end not on a whole
// hour) reach before the minute rollup's retention at now, naming the field.
func CheckMinutes(r Range, now time.Time) error {
	oldest := now.Add(-MinuteRetention)
	if !onHour(r.From) && r.From.Before(oldest) {
		return apperr.Invalid("from must fall on a whole hour, such as 2026-11-25T00:00:00+08:00, when it is more than 48 hours ago (minutes are kept for 48 hours).")
	}
	if !onHour(r.To) && r.To.Truncate(time.Hour).Before(oldest) {
		return apperr.Invalid("to must end one millisecond before a whole hour, such as 2026-11-25T23:59:59.999+08:00, when it is more than 48 hours ago (minutes are kept for 48 hours).")
	}
	return nil
}

// Pieces splits [from, to) (whole minutes) into whole UTC hours, read from
// the hour rollup, and the minutes at either edge, read from the minute
// rollup; each piece is of series day day.
func Pieces(from, to time.Time, day int) []Segment {
	var out []Segment
	add := func(g Grain, a, b time.Time) {
		if a.Before(b) {
			out = append(out, Segment{Grain: g, From: a, To: b, Day: day})
		}
	}
	h0, h1 := from.Truncate(time.Hour), to.Truncate(time.Hour)
	if !onHour(from) {
		h0 = h0.Add(time.Hour)
	}
	if !h0.Before(h1) {
		add(Minute, from, to)
		return out
	}
	add(Minute, from, h0)
	add(Hour, h0, h1)
	add(Minute, h1, to)
	return out
}

// CountSegments splits a range for the counts: the minutes at either edge
// from the minute rollup, the whole hours between as Decompose does.
func CountSegments(r Range) []Segment {
	h0, h1 := r.From.Truncate(time.Hour), r.To.Truncate(time.Hour)
	if !onHour(r.From) {
		h0 = h0.Add(time.Hour)
	}
	if !h0.Before(h1) {
		return []Segment{{Grain: Minute, From: r.From, To: r.To}}
	}
	var out []Segment
	if r.From.Before(h0) {
		out = append(out, Segment{Grain: Minute, From: r.From, To: h0})
	}
	out = append(out, Decompose(h0, h1, true)...)
	if h1.Before(r.To) {
		out = append(out, Segment{Grain: Minute, From: h1, To: r.To})
	}
	return out
}

// Segment is a part of a range answered from one rollup: [From, To).
type Segment struct {
	Grain Grain
	From  time.Time
	To    time.Time
	// Day is the series day of a cash tail's rows.
	Day int
}

// Decompose splits [from, to) (whole UTC hours) into whole UTC months, then
// whole UTC days, then the hours at either edge, so that a year is read as
// about 12 month rows, 2×30 day rows and 2×23 hour rows per key. With
// useMonths false, months are read as days. Empty segments are left out.
func Decompose(from, to time.Time, useMonths bool) []Segment {
	var out []Segment
	add := func(g Grain, a, b time.Time) {
		if a.Before(b) {
			out = append(out, Segment{Grain: g, From: a, To: b})
		}
	}
	d0 := Day.Bucket(from)
	if d0.Before(from) {
		d0 = d0.AddDate(0, 0, 1)
	}
	d1 := Day.Bucket(to)
	if !d0.Before(d1) {
		add(Hour, from, to)
		return out
	}
	add(Hour, from, d0)
	add(Hour, d1, to)
	m0 := Month.Bucket(d0)
	if m0.Before(d0) {
		m0 = m0.AddDate(0, 1, 0)
	}
	m1 := Month.Bucket(d1)
	if !useMonths || !m0.Before(m1) {
		add(Day, d0, d1)
		return out
	}
	add(Day, d0, m0)
	add(Day, m1, d1)
	add(Month, m0, m1)
	return out
}

// Query is what Store.Figures answers.
type Query struct {
	Range Range
	// Currency is the reporting currency (USD or one with a rate).
	Currency string
	// Merchants limits the figures to these merchants; nil means every one.
	Merchants []int32
	// Counts are read from these segments (months allowed).
	Counts []Segment
	// Cash says where the successful amounts are read from.
	Cash CashPlan
}

// CashPlan reads a range's successful amounts: its whole local days from
// the cash rollup in the zone where From is local midnight, and the hours
// of a last, partial day (a To that is not a local midnight) from the hour
// rollup. Every row read then falls in one day of the series and one UTC
// day's rate.
type CashPlan struct {
	// Offset is the zone of the cash rollup rows read, in hours.
	Offset int
	// FirstDay is the local day From starts; day i of the series is
	// FirstDay + i days.
	FirstDay time.Time
	// Days is how many whole local days are read from the cash rollup.
	Days int
	// Tail is the partial last day, read from the hour rollup; empty when
	// the range is whole days.
	Tail []Segment
}

// PlanCash returns the cash plan of r: whole 24-hour days from r.From, then
// the hours and minutes left. A From off the whole hour is no local midnight
// of any offset: then every day of the series is read from the hour and
// minute rollups (such a range lies within the last 48 hours).
func PlanCash(r Range) CashPlan {
	if !onHour(r.From) {
		off := OffsetOf(r.From.Truncate(time.Hour))
		p := CashPlan{Offset: off, FirstDay: LocalDay(r.From, off)}
		for i := 0; ; i++ {
			a := r.From.Add(time.Duration(i) * 24 * time.Hour)
			if !a.Before(r.To) {
				break
			}
			b := a.Add(24 * time.Hour)
			if b.After(r.To) {
				b = r.To
			}
			p.Tail = append(p.Tail, Pieces(a, b, i)...)
		}
		return p
	}
	off := OffsetOf(r.From)
	days := int(r.To.Sub(r.From) / (24 * time.Hour))
	p := CashPlan{Offset: off, FirstDay: LocalDay(r.From, off), Days: days}
	if end := r.From.Add(time.Duration(days) * 24 * time.Hour); end.Before(r.To) {
		p.Tail = Pieces(end, r.To, days)
	}
	return p
}

// CountRow is how many transactions of one merchant, provider and status
// the range holds.
type CountRow struct {
	MerchantID int32
	ProviderID int32
	Status     int32
	N          int64
}

// CashRow is a sum of successful transactions of one type. Exactly one of
// its groupings is set: the whole range (Day -1, Merchant 0), one day of
// the series (Day >= 0) or one merchant (MerchantID != 0).
type CashRow struct {
	Type       int32
	Day        int
	MerchantID int32
	// Unconverted is the currency of amounts that had no rate on their
	// day, in that currency; empty for converted amounts.
	Unconverted string
	N           int64
	Amount      string
}

// Figures are the raw answer of a query.
type Figures struct {
	Counts        []CountRow
	Cash          []CashRow
	MerchantNames map[int32]string
	ProviderNames map[int32]string
	// AsOf is the newest event time applied; zero before any.
	AsOf time.Time
}
