package paging_test

import (
	"testing"

	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/paging"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	n := func(v int32) *int32 { return &v }
	for _, tt := range []struct {
		name       string
		page, take *int32
		wantPage   int32
		wantTake   int32
		wantErr    string
	}{
		{"absent", nil, nil, 1, 100, ""},
		{"given", n(3), n(20), 3, 20, ""},
		{"largest take", nil, n(500), 1, 500, ""},
		{"page 0", n(0), nil, 0, 0, "page must be 1 or more."},
		{"negative page", n(-2), nil, 0, 0, "page must be 1 or more."},
		{"take 0", nil, n(0), 0, 0, "take must be between 1 and 500."},
		{"take over the maximum", nil, n(501), 0, 0, "take must be between 1 and 500."},
	} {
		p, tk, err := paging.Resolve(tt.page, tt.take, 100, 500)
		if tt.wantErr != "" {
			if apperr.KindOf(err) != apperr.KindInvalid || err.Error() != tt.wantErr {
				t.Errorf("%s: %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil || p != tt.wantPage || tk != tt.wantTake {
			t.Errorf("%s: %d, %d, %v; want %d, %d", tt.name, p, tk, err, tt.wantPage, tt.wantTake)
		}
	}
}
