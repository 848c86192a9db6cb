package currency

import (
	"testing"
	"time"

	"github.com/paygate/paygate/services/internal/apperr"
)

func TestValidateBounds(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 2, 28, 23, 30, 0, 0, time.FixedZone("UTC+3", 3*3600)) // 20:30 UTC
	s := NewService(nil, func() time.Time { return now })
	tests := []struct {
		rate, from string
		ok         bool
		wantDay    string
	}{
		{"0.0172", "", true, "2026-02-28"},
		{"1", "2000-01-01", true, "2000-01-01"},
		{"999999999999.999999999999", "2027-02-28", true, "2027-02-28"},
		{"0.000000000001", "2027-03-01", false, ""},
		{"1", "1999-12-31", false, ""},
		{"1000000000000", "", false, ""},
		{".5", "", false, ""},
		{"5.", "", false, ""},
		{" 1", "", false, ""},
		{"1", "2026-2-1", false, ""},
		{"0", "", false, ""},
	}
	for _, tt := range tests {
		r, err := s.validate(SetRequest{Currency: "PHP", USDRate: tt.rate, EffectiveFrom: tt.from})
		if tt.ok != (err == nil) {
			t.Errorf("%q from %q: %v, want ok %v", tt.rate, tt.from, err, tt.ok)
			continue
		}
		if err != nil && apperr.KindOf(err) != apperr.KindInvalid {
			t.Errorf("%q from %q: kind %q, want invalid", tt.rate, tt.from, apperr.KindOf(err))
		}
		if tt.ok && r.EffectiveFrom.Format(DayLayout) != tt.wantDay {
			t.Errorf("%q from %q: day %s, want %s", tt.rate, tt.from, r.EffectiveFrom.Format(DayLayout), tt.wantDay)
		}
	}
}
