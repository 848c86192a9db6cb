package radar

import (
	"testing"
	"time"
)

func TestWinnerMostSpecific(t *testing.T) {
	t.Parallel()
	slas := []SLA{{ID: 1, Seconds: 1800}, {ID: 2, Type: 1, Seconds: 10}, {ID: 3, PayTypeID: 5, Seconds: 20},
		{ID: 4, ProviderID: 7, Seconds: 30}, {ID: 5, ProviderID: 7, PayTypeID: 5, Type: 2, Seconds: 40}}
	for _, c := range []struct {
		provider, payType int32
		typ               int16
		want              int64
	}{{1, 1, 2, 1}, {1, 1, 1, 2}, {1, 5, 1, 3}, {7, 5, 1, 4}, {7, 5, 2, 5}, {7, 1, 2, 4}} {
		if w, ok := Winner(slas, c.provider, c.payType, c.typ); !ok || w.ID != c.want {
			t.Errorf("Winner(%d, %d, %d) = %d, want %d", c.provider, c.payType, c.typ, w.ID, c.want)
		}
	}
}

func TestPageToken(t *testing.T) {
	t.Parallel()
	asOf := time.Date(2025, 3, 1, 12, 0, 0, 123000, time.UTC)
	k := Key{CreatedAt: asOf.Add(-time.Hour), ID: 42}
	gotAsOf, gotKey, err := decodeToken(encodeToken(asOf, k))
	if err != nil || !gotAsOf.Equal(asOf) || !gotKey.CreatedAt.Equal(k.CreatedAt) || gotKey.ID != 42 {
		t.Fatalf("round trip: %v %v %v", gotAsOf, gotKey, err)
	}
	for _, bad := range []string{"!!", "MQ", "YS5iLmM"} {
		if _, _, err := decodeToken(bad); err == nil {
			t.Errorf("decodeToken(%q) accepted", bad)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	t.Parallel()
	for sec, want := range map[int64]string{120: "2m", 200: "3m20s", 3600: "1h", 5400: "1h30m", 45: "45s"} {
		if got := formatDuration(sec); got != want {
			t.Errorf("formatDuration(%d) = %q, want %q", sec, got, want)
		}
	}
}
