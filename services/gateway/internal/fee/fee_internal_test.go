package fee

import (
	"testing"

	"github.com/paygate/paygate/services/gateway/internal/money"
	"github.com/paygate/paygate/services/gateway/internal/payment"
)

// TestConflictsOf checks that a save is checked against enabled fees only,
// with payment.Conflicts, and that each conflict names the winner of its
// overlap by payment.Wins.
func TestConflictsOf(t *testing.T) {
	t.Parallel()
	f := func(id int64, collab int32, prio int32, enabled bool, max int64) Fee {
		g := Fee{Fee: payment.Fee{ID: id, CollabID: collab, CurrencyFrom: "PHP", CurrencyTo: "PHP", Priority: prio, Enabled: enabled}}
		if max > 0 {
			g.AmountMax = money.Cents(max)
		}
		return g
	}
	saved := f(0, 7, 5, true, 0)
	candidates := []Fee{
		f(1, 0, 99, true, 0),    // global: the collab fee wins
		f(2, 7, 9, true, 0),     // same collab, higher priority: it wins
		f(3, 7, 5, true, 0),     // a tie: the saved fee (id 3) beats a new one
		f(4, 7, 0, false, 0),    // disabled: no conflict
		f(5, 8, 0, true, 0),     // another collab: no conflict
		f(6, 7, 0, true, 1_000), // overlaps (open lower end)
	}
	got := conflictsOf(saved, candidates)
	want := map[int64]int64{1: 0, 2: 2, 3: 3, 6: 0}
	if len(got) != len(want) {
		t.Fatalf("conflicts %+v, want ids %v", got, want)
	}
	for _, c := range got {
		if w, ok := want[c.Fee.ID]; !ok || w != c.WinnerID {
			t.Errorf("fee %d: winner %d, want %d (listed: %v)", c.Fee.ID, c.WinnerID, w, ok)
		}
	}
	saved.Enabled = false
	if got := conflictsOf(saved, candidates); len(got) != 0 {
		t.Errorf("a disabled fee conflicts with %+v", got)
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	v, _ := payment.ParseDecimal4("1.5")
	f := Fee{Fee: payment.Fee{CurrencyFrom: "PHP", CurrencyTo: "PHP", FeeType: payment.FeePercent, Value: v, Enabled: true}}
	if got := Describe(f); got != "1.5000% on PHP→PHP, enabled" {
		t.Errorf("Describe = %q", got)
	}
	f.FeeType, f.Enabled = payment.FeeNone, false
	if got := Describe(f); got != "no fee on PHP→PHP, disabled" {
		t.Errorf("Describe = %q", got)
	}
}
