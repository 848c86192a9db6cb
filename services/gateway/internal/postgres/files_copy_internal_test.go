package postgres

import (
	"strings"
	"testing"
	"time"
)

// TestLiteralIsDigitsAndPunctuation checks that what bindSettings writes
// into the COPY's SQL can hold no quote or other text, and that text
// values are left to the settings.
func TestLiteralIsDigitsAndPunctuation(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 3, 9, 6, 59, 59, 999999000, time.FixedZone("x", -5*3600))
	for _, tc := range []struct {
		v    any
		want string
	}{
		{int16(-6), "-6"}, {int32(42), "42"}, {int64(-9_000_000_000), "-9000000000"}, {7, "7"},
		{[]int32{3, -1, 20}, "{3,-1,20}"}, {[]int32{}, "{}"}, {[]int32(nil), ""},
		{at, "2025-03-09 11:59:59.999999Z"}, {time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), "2025-01-01 00:00:00Z"},
		{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), ""},
		{"x' OR true --", ""}, {[]int16{1}, ""}, {[]string{"a"}, ""}, {nil, ""},
	} {
		got := literal(tc.v)
		if got != tc.want {
			t.Errorf("literal(%#v) = %q, want %q", tc.v, got, tc.want)
		}
		if strings.Trim(got, "0123456789-:. Z{,}") != "" {
			t.Errorf("literal(%#v) = %q holds other characters", tc.v, got)
		}
	}
}
