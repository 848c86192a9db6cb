package fraud_test

import (
	"strings"
	"testing"

	"github.com/paygate/paygate/services/gateway/internal/fraud"
	"github.com/paygate/paygate/services/internal/apperr"
)

func TestLevelOf(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		observed, threshold float64
		want                int32
	}{
		{5, 5, 1}, {7, 5, 1}, {7.5, 5, 2}, {9.9, 5, 2}, {10, 5, 3}, {14.9, 5, 3}, {15, 5, 4}, {100, 5, 4},
		{5, 3, 2}, {10, 3, 4},
	} {
		if got := fraud.LevelOf(tt.observed, tt.threshold); got != tt.want {
			t.Errorf("LevelOf(%v, %v) = %d, want %d", tt.observed, tt.threshold, got, tt.want)
		}
	}
}

func TestParseThresholds(t *testing.T) {
	t.Parallel()
	got, err := fraud.ParseThresholds("")
	if err != nil || got != fraud.DefaultThresholds() {
		t.Fatalf("empty: %+v, %v", got, err)
	}
	got, err = fraud.ParseThresholds(`{"velocityMaxPayments": 7, "amountSpikeFactor": 2.5}`)
	want := fraud.DefaultThresholds()
	want.VelocityMaxPayments, want.AmountSpikeFactor = 7, 2.5
	if err != nil || got != want {
		t.Fatalf("partial: %+v, %v; want %+v", got, err, want)
	}
	for raw, words := range map[string][]string{
		`{"velocityMaxPayments": 1, "failuresWindowMinutes": 0}`:         {"velocityMaxPayments must be at least 2", "failuresWindowMinutes must be from 1 to 1440"},
		`{"amountSpikeFactor": 1}`:                                       {"amountSpikeFactor must be more than 1"},
		`{"sharedIdentityMinClients": 1, "velocityWindowMinutes": 1441}`: {"sharedIdentityMinClients", "velocityWindowMinutes"},
		`{"velocity": 3}`: {"JSON object with the fields"},
		`[1]`:             {"JSON object with the fields"},
	} {
		_, err := fraud.ParseThresholds(raw)
		if apperr.KindOf(err) != apperr.KindInvalid {
			t.Errorf("%s: %v, want invalid", raw, err)
			continue
		}
		for _, w := range words {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", raw, err, w)
			}
		}
	}
}

func TestReviewStatus(t *testing.T) {
	t.Parallel()
	for s, want := range map[fraud.ReviewStatus]string{0: "Not Reviewed", 1: "Confirmed", 2: "Denied", 3: "status 3"} {
		if got := s.String(); got != want || s.Known() != (s <= 2) {
			t.Errorf("%d: %q, known %v", s, got, s.Known())
		}
	}
}
