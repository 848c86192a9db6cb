package payment

import (
	"slices"
	"testing"

	"github.com/paygate/paygate/services/gateway/internal/money"
)

func TestSelectFee(t *testing.T) {
	t.Parallel()
	amt := money.Cents(1000_00)
	fees := []Fee{
		{ID: 1, CurrencyFrom: "PHP", CurrencyTo: "PHP", FeeType: FeePercent, Value: 15000, Enabled: true},
		{ID: 2, Type: TypeDeposit, CurrencyFrom: "PHP", CurrencyTo: "PHP", FeeType: FeeFixed, Value: 50000, Enabled: true},
		{ID: 3, CollabID: 7, CurrencyFrom: "PHP", CurrencyTo: "PHP", FeeType: FeeFixed, Value: 70000, Priority: 1, Enabled: true},
		{ID: 4, CollabID: 7, CurrencyFrom: "PHP", CurrencyTo: "PHP", FeeType: FeeFixed, Value: 80000, Priority: 5, Enabled: true},
		{ID: 5, CollabID: 7, PayTypeID: 1, Type: TypeDeposit, CurrencyFrom: "PHP", CurrencyTo: "PHP", FeeType: FeeFixed, Value: 90000, Enabled: false},
		{ID: 6, CollabID: 8, CurrencyFrom: "PHP", CurrencyTo: "PHP", FeeType: FeeFixed, Value: 1, AmountMax: money.Cents(100_00), Enabled: true},
		{ID: 7, CollabID: 8, CurrencyFrom: "PHP", CurrencyTo: "PHP", FeeType: FeeFixed, Value: 2, AmountMax: money.Cents(100_00), Enabled: true},
	}
	tests := []struct {
		name   string
		collab int32
		typ    Type
		amount money.Amount
		cur    string
		want   int64
	}{
		{"collab beats type; priority among equals", 7, TypeDeposit, amt, "PHP", 4},
		{"type beats none", 1, TypeDeposit, amt, "PHP", 2},
		{"none left", 1, TypeWithdrawal, amt, "PHP", 1},
		{"lower id on a tie", 8, TypeWithdrawal, money.Cents(50_00), "PHP", 6},
		{"amount out of range", 8, TypeWithdrawal, amt, "PHP", 1},
		{"other currency", 7, TypeDeposit, amt, "USD", 0},
	}
	for _, tt := range tests {
		f, ok := SelectFee(fees, tt.collab, tt.typ, 1, tt.cur, tt.amount)
		if (tt.want == 0) == ok || ok && f.ID != tt.want {
			t.Errorf("%s: got %d (%v), want %d", tt.name, f.ID, ok, tt.want)
		}
	}
}

func TestCharge(t *testing.T) {
	t.Parallel()
	pct := func(s string) Fee { v, _ := ParseDecimal4(s); return Fee{FeeType: FeePercent, Value: v} }
	fix := func(s string) Fee { v, _ := ParseDecimal4(s); return Fee{FeeType: FeeFixed, Value: v} }
	tests := []struct {
		fee    Fee
		amount int64
		want   string
	}{
		{pct("1.5"), 1000_00, "15.00"},
		{pct("2.5"), 1_01, "0.03"}, // 0.02525 rounds half up
		{pct("0.0001"), 99_999_999_999_999_999, "1000000000.00"},
		{fix("15"), 10_00, "15.00"},
		{fix("0.005"), 10_00, "0.01"},
	}
	for _, tt := range tests {
		if got := tt.fee.Charge(money.Cents(tt.amount)).String(); got != tt.want {
			t.Errorf("%v on %d = %s, want %s", tt.fee, tt.amount, got, tt.want)
		}
	}
}

func FuzzParseAmount(f *testing.F) {
	for _, s := range []string{"10", "10.5", "10.50", "0", "-1", "1e3", "", " 7.00 ", "999999999999999.99"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAmount(s)
		if err != nil {
			return
		}
		if a.CentsValue() <= 0 {
			t.Fatalf("%q parsed to %d", s, a.CentsValue())
		}
		again, err := ParseAmount(a.String())
		if err != nil || again != a {
			t.Fatalf("%q → %s does not round-trip", s, a)
		}
	})
}

// TestConflicts walks the rule of spec 02 §5 one clause at a time.
func TestConflicts(t *testing.T) {
	t.Parallel()
	base := Fee{ID: 1, CurrencyFrom: "PHP", CurrencyTo: "PHP", Enabled: true}
	with := func(f func(*Fee)) Fee { g := base; g.ID = 2; f(&g); return g }
	cents := money.Cents
	tests := []struct {
		name string
		a, b Fee
		want bool
	}{
		{"identical global fees", base, with(func(*Fee) {}), true},
		{"other currency from", base, with(func(f *Fee) { f.CurrencyFrom = "USD" }), false},
		{"other currency to", base, with(func(f *Fee) { f.CurrencyTo = "USD" }), false},
		{"currency case does not matter", base, with(func(f *Fee) { f.CurrencyFrom, f.CurrencyTo = "php", "php" }), true},
		{"collab empty on one", base, with(func(f *Fee) { f.CollabID = 7 }), true},
		{"collab equal on both", with(func(f *Fee) { f.CollabID = 7 }), with(func(f *Fee) { f.CollabID = 7 }), true},
		{"collabs differ", with(func(f *Fee) { f.CollabID = 7 }), with(func(f *Fee) { f.CollabID = 8 }), false},
		{"type empty on one", base, with(func(f *Fee) { f.Type = TypeDeposit }), true},
		{"types differ", with(func(f *Fee) { f.Type = TypeDeposit }), with(func(f *Fee) { f.Type = TypeWithdrawal }), false},
		{"pay type empty on one", base, with(func(f *Fee) { f.PayTypeID = 3 }), true},
		{"pay types equal", with(func(f *Fee) { f.PayTypeID = 3 }), with(func(f *Fee) { f.PayTypeID = 3 }), true},
		{"pay types differ", with(func(f *Fee) { f.PayTypeID = 3 }), with(func(f *Fee) { f.PayTypeID = 1 }), false},
		{"open ranges overlap", with(func(f *Fee) { f.AmountMin = cents(100_00) }), with(func(f *Fee) { f.AmountMax = cents(50_00) }), false},
		{"open max meets min", with(func(f *Fee) { f.AmountMin = cents(100_00) }), with(func(f *Fee) { f.AmountMax = cents(100_00) }), true},
		{"disjoint closed ranges", with(func(f *Fee) { f.AmountMin, f.AmountMax = cents(0), cents(99_99) }),
			with(func(f *Fee) { f.AmountMin, f.AmountMax = cents(100_00), cents(200_00) }), false},
		{"touching closed ranges", with(func(f *Fee) { f.AmountMin, f.AmountMax = cents(0), cents(100_00) }),
			with(func(f *Fee) { f.AmountMin, f.AmountMax = cents(100_00), cents(200_00) }), true},
		{"nested range", with(func(f *Fee) { f.AmountMin, f.AmountMax = cents(10_00), cents(20_00) }),
			with(func(f *Fee) { f.AmountMin = cents(5_00) }), true},
		{"unbounded on both", base, with(func(f *Fee) { f.AmountMin, f.AmountMax = cents(1), cents(2) }), true},
		{"every clause equal but range apart", with(func(f *Fee) { f.CollabID, f.Type, f.PayTypeID, f.AmountMax = 7, TypeDeposit, 3, cents(1_00) }),
			with(func(f *Fee) { f.CollabID, f.Type, f.PayTypeID, f.AmountMin = 7, TypeDeposit, 3, cents(1_01) }), false},
	}
	for _, tt := range tests {
		if got := Conflicts(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: Conflicts(a, b) = %v, want %v", tt.name, got, tt.want)
		}
		if got := Conflicts(tt.b, tt.a); got != tt.want {
			t.Errorf("%s: Conflicts(b, a) = %v, want %v (the rule is symmetric)", tt.name, got, tt.want)
		}
	}
}

// TestWins checks the winner order of spec 02 §5 with the weights 1000 (no
// collab), 100 (no type) and 10 (no pay type).
func TestWins(t *testing.T) {
	t.Parallel()
	f := func(id int64, collab int32, typ Type, payType int32, prio int32) Fee {
		return Fee{ID: id, CollabID: collab, Type: typ, PayTypeID: payType, Priority: prio, Enabled: true}
	}
	tests := []struct {
		name string
		a, b Fee
	}{
		{"collab over type and pay type", f(9, 7, 0, 0, 0), f(1, 0, TypeDeposit, 3, 99)},
		{"type over pay type", f(9, 0, TypeDeposit, 0, 0), f(1, 0, 0, 3, 99)},
		{"pay type over none", f(9, 0, 0, 3, 0), f(1, 0, 0, 0, 99)},
		{"higher priority among equals", f(9, 7, 0, 0, 5), f(1, 7, 0, 0, 4)},
		{"lower id last", f(1, 7, 0, 0, 5), f(9, 7, 0, 0, 5)},
		{"a saved fee over a new one on a tie", f(9, 7, 0, 0, 5), f(0, 7, 0, 0, 5)},
	}
	for _, tt := range tests {
		if !Wins(tt.a, tt.b) || Wins(tt.b, tt.a) {
			t.Errorf("%s: Wins(a, b) = %v, Wins(b, a) = %v", tt.name, Wins(tt.a, tt.b), Wins(tt.b, tt.a))
		}
	}
	if (Fee{FeeType: FeeNone, Value: 50000}).Charge(money.Cents(100_00)).CentsValue() != 0 {
		t.Error("a fee of type None charges something")
	}
}

func TestAmountBounds(t *testing.T) {
	t.Parallel()
	got := AmountBounds([]Fee{{AmountMin: money.Cents(100), AmountMax: money.Cents(500)}, {AmountMax: money.Cents(99)}, {}})
	if want := []int64{0, 100, 501}; !slices.Equal(got, want) {
		t.Errorf("AmountBounds = %v, want %v", got, want)
	}
}
