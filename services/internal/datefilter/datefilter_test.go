package datefilter_test

import (
	"testing"
	"time"

	"github.com/paygate/paygate/services/internal/datefilter"
)

func TestIn(t *testing.T) {
	t.Parallel()
	plus8, minus12 := time.FixedZone("+8", 8*3600), time.FixedZone("-12", -12*3600)
	for _, c := range []struct {
		t    time.Time
		want bool
	}{
		{time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{time.Date(2024, 12, 31, 23, 59, 59, 999e6, time.UTC), false},
		{time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), true},
		// On the caller's clock: 2025-01-01 at +08:00 is 2024 in UTC, and
		// 2024-12-31 at -12:00 is 2025 in UTC.
		{time.Date(2025, 1, 1, 0, 0, 0, 0, plus8), true},
		{time.Date(2024, 12, 31, 12, 0, 0, 0, minus12), false},
		{time.Date(9999, 12, 30, 23, 59, 59, 999e6, time.UTC), true},
		{time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), false},
		{time.Date(9999, 12, 30, 20, 0, 0, 0, minus12), false}, // 9999-12-31 in UTC
		{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), false},
	} {
		if got := datefilter.In(c.t); got != c.want {
			t.Errorf("In(%s) = %v, want %v", c.t.Format(time.RFC3339Nano), got, c.want)
		}
	}
	if got := datefilter.Problem("from"); got != "from must be a date from 2025-01-01 to 9999-12-30" {
		t.Errorf("Problem = %q", got)
	}
}
