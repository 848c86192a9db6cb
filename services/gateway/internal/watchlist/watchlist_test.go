package watchlist

import (
	"math/big"
	"strings"
	"testing"

	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
)

func TestValidateNamesEveryField(t *testing.T) {
	t.Parallel()
	_, err := validate(Input{Name: " ", Metric: "avg", WindowMinutes: 1441, Query: strings.Repeat("q", 2001),
		Filter: payment.ListQuery{Type: 7}, Threshold: &ThresholdInput{Comparison: "over", Value: "x"}})
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"name is required", "metric must be count, sum or successRate", "windowMinutes must be between 5 and 1440",
		"query must be at most 2000 characters", "filter: type must be 1 (deposit) or 2 (withdrawal)", "threshold.comparison must be above or below"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}

func TestThresholdCrossing(t *testing.T) {
	t.Parallel()
	rate := func(cmp, v string) Watchlist {
		w, err := validate(Input{Name: "r", Metric: "successRate", WindowMinutes: 15, Threshold: &ThresholdInput{Comparison: cmp, Value: v}})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	w := rate(Below, "85")
	if v, ok := measure(w, Totals{SuccessCount: 17, FinalCount: 20}); !ok || crossedBy(w, v) { // exactly 85 %: not below
		t.Errorf("85 %% is below 85 %%")
	}
	if v, _ := measure(w, Totals{SuccessCount: 16, FinalCount: 20}); !crossedBy(w, v) {
		t.Errorf("80 %% is not below 85 %%")
	}
	if _, ok := measure(w, Totals{}); ok {
		t.Error("a rate without final payments has a value")
	}
	sum, err := validate(Input{Name: "s", Metric: "sum", WindowMinutes: 60, Threshold: &ThresholdInput{Comparison: Above, Value: "1000.50", Currency: "php"}})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := measure(sum, Totals{Sums: map[string]string{"PHP": "1000.51", "USD": "5000"}}); !crossedBy(sum, v) {
		t.Error("1000.51 PHP is not above 1000.50 PHP")
	}
	if v, _ := measure(sum, Totals{Sums: map[string]string{"USD": "5000"}}); crossedBy(sum, v) {
		t.Error("no PHP is above 1000.50 PHP")
	}
	if got := decimalText(big.NewRat(171, 2)); got != "85.5" {
		t.Errorf("decimalText = %s", got)
	}
}

func TestIdenticalWatchlistsShareAGroup(t *testing.T) {
	t.Parallel()
	a := Watchlist{Filter: payment.ListQuery{CollabID: 3, Statuses: []string{"4"}}, WindowMinutes: 15, Metric: MetricCount,
		Scope: merchant.Scope{MerchantIDs: []int32{2, 1}}}
	b := a
	b.Metric, b.Scope = MetricSum, merchant.Scope{MerchantIDs: []int32{1, 2}}
	if groupKey(a) != groupKey(b) {
		t.Errorf("count and sum over the same filter, window and scope are computed twice")
	}
	c := a
	c.Metric = MetricSuccessRate
	d := a
	d.Scope = merchant.Scope{All: true}
	if groupKey(a) == groupKey(c) || groupKey(a) == groupKey(d) {
		t.Error("a rate or another scope shares a count's group")
	}
}
