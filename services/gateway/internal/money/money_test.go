package money

import (
	"strings"
	"testing"

	"github.com/paygate/paygate/services/internal/apperr"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string
		err  string
	}{
		{"", "", ""},
		{"  ", "", "must be an amount"},
		{" 150.00", "", "must be an amount"},
		{"150.00 ", "", "must be an amount"},
		{"+150", "", "must be an amount"},
		{"1E3", "", "must be an amount"},
		{"0x10", "", "must be an amount"},
		{"١٥٠", "", "must be an amount"},
		{"0", "0.00", ""},
		{"1500", "1500.00", ""},
		{"1500.5", "1500.50", ""},
		{"1500.05", "1500.05", ""},
		{"-3.25", "-3.25", ""},
		{"007", "7.00", ""},
		{"999999999999999.99", "999999999999999.99", ""},
		{"1000000000000000", "", "too large"},
		{"1.005", "", "at most two decimal places"},
		{"1.", "", "must be an amount"},
		{".5", "", "must be an amount"},
		{"1e3", "", "must be an amount"},
		{"1,000", "", "must be an amount"},
		{"NaN", "", "must be an amount"},
		{"-", "", "must be an amount"},
	}
	for _, tt := range tests {
		a, err := Parse("x", tt.in)
		if tt.err != "" {
			if apperr.KindOf(err) != apperr.KindInvalid || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Parse(%q) error = %v, want one containing %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || a.String() != tt.want || a.IsSet() != (tt.want != "") {
			t.Errorf("Parse(%q) = %q, %v; want %q", tt.in, a, err, tt.want)
		}
	}
}
