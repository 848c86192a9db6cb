// Package datefilter holds the dates a list or statistics filter may name:
// from First, 2025-01-01 (the product's first day, and the earliest day the
// console's date pickers offer), to Last, 9999-12-30 (the last whole day
// whose end an answer's google.protobuf.Timestamp, which ends with the year
// 9999, can still hold). A date out of this range answers 400 naming its
// field, where it used to reach the store or fail to encode (500).
package datefilter

import (
	"fmt"
	"time"
)

// First and Last are the first and last dates a filter may name, on the
// clock the caller wrote it on.
const (
	First = "2025-01-01"
	Last  = "9999-12-30"
)

var (
	first = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	last  = time.Date(9999, 12, 30, 0, 0, 0, 0, time.UTC)
	// end is the end of Last in UTC: an instant from it on may, with a
	// day or an hour added, leave the encodable range.
	end = last.AddDate(0, 0, 1)
)

// In reports whether t may be a filter's date: its date on its own clock
// (the zone it was written or read in) is from First to Last, and the
// instant is before the end of Last in UTC.
func In(t time.Time) bool {
	y, m, d := t.Date()
	day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	return !day.Before(first) && !day.After(last) && t.Before(end)
}

// Problem is the refusal of field's date, without a full stop, to join
// with others: "from must be a date from 2025-01-01 to 9999-12-30".
func Problem(field string) string {
	return fmt.Sprintf("%s must be a date from %s to %s", field, First, Last)
}
